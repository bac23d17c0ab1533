/* helper_thread.h — a thread that helps the run: it never takes the run's
 * signals, which are for the main thread (a stop wakes its waits). */
#ifndef EMU_HELPER_THREAD_H
#define EMU_HELPER_THREAD_H
#include <pthread.h>
#include <signal.h>

/* pthread_create's result: 0, or why it could not start. */
static inline int helper_thread_start(pthread_t *th, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(th, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}
#endif
