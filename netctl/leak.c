/* leak.c — see leak.h. */
#include "netctl/leak.h"
#include "netctl/plan.h"
#include <jansson.h>
#include <nftables/libnftables.h>
#include <stdio.h>
#include <string.h>

/* DSCP 2 is TOS 0x08 without the ECN bits. */
static const char ruleset[] =
	"table ip emu {\n"
	"  counter marked_eps { }\n"
	"  chain forward {\n"
	"    type filter hook forward priority 0; policy accept;\n"
	"    oifname \"up\" ip dscp 2 counter name \"marked_eps\"\n"
	"  }\n"
	"}\n";

int leak_install(char *err, int errlen)
{
	struct nft_ctx *nft = nft_ctx_new(NFT_CTX_DEFAULT);
	if (!nft) {
		snprintf(err, errlen, "nftables: cannot create a context");
		return -1;
	}
	nft_ctx_buffer_error(nft);
	int rc = nft_run_cmd_from_buffer(nft, ruleset);
	if (rc)
		snprintf(err, errlen, "nftables leak counter: %s", nft_ctx_get_error_buffer(nft));
	nft_ctx_free(nft);
	return rc ? -1 : 0;
}

int leak_read(uint64_t *bytes, uint64_t *packets)
{
	struct nft_ctx *nft = nft_ctx_new(NFT_CTX_DEFAULT);
	int rc = -1;
	if (!nft)
		return -1;
	nft_ctx_output_set_flags(nft, NFT_CTX_OUTPUT_JSON);
	nft_ctx_buffer_output(nft);
	nft_ctx_buffer_error(nft);
	if (!nft_run_cmd_from_buffer(nft, "list counter ip emu marked_eps")) {
		json_t *root = json_loads(nft_ctx_get_output_buffer(nft), 0, NULL);
		json_t *arr = json_object_get(root, "nftables"), *e;
		size_t i;
		json_array_foreach(arr, i, e) {
			json_t *c = json_object_get(e, "counter");
			if (c) {
				*bytes = (uint64_t)json_integer_value(json_object_get(c, "bytes"));
				*packets = (uint64_t)json_integer_value(json_object_get(c, "packets"));
				rc = 0;
			}
		}
		json_decref(root);
	}
	nft_ctx_free(nft);
	return rc;
}
