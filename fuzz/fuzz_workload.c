/* libFuzzer harness: the workload target of fuzz/targets.h (make fuzz).
 *
 * A few bytes can ask for millions of tasks ("maps": 9999999, or a SWIM
 * line with 10^15 input bytes): legitimate, but ~1 GB and seconds per input,
 * which would starve the fuzzer.  While the target runs, the workload code's
 * own allocations (emu/workload*.c and units.c are linked with --wrap=malloc,
 * calloc, realloc) fail above FUZZ_ALLOC_LIMIT as if memory ran out, so such
 * inputs take the out-of-memory paths instead — which must be clean too. */
#include "fuzz/targets.h"
#include <errno.h>

#define FUZZ_ALLOC_LIMIT (16u << 20)

static int in_target;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);

void *__wrap_malloc(size_t n)
{
	if (in_target && n > FUZZ_ALLOC_LIMIT) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	if (in_target && size && n > FUZZ_ALLOC_LIMIT / size) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
	if (in_target && n > FUZZ_ALLOC_LIMIT) {
		errno = ENOMEM;
		return NULL;
	}
	return __real_realloc(p, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	in_target = 1;
	int bad = fuzz_workload(data, size);
	in_target = 0;
	if (bad) {
		fprintf(stderr, "fuzz_workload: property %d violated\n", bad);
		abort();
	}
	return 0;
}
