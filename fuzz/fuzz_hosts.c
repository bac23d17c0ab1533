/* libFuzzer harness: the hosts target of fuzz/targets.h (make fuzz). */
#include "fuzz/targets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int bad = fuzz_hosts(data, size);
	if (bad) {
		fprintf(stderr, "fuzz_hosts: property %d violated\n", bad);
		abort();
	}
	return 0;
}
