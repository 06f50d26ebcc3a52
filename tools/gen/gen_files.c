/* SPDX-License-Identifier: MIT */
/* ascprof-gen: the files around the trace (profiler_info, metadata, raw parts) and one rank's directory. */
#include "gen.h"
#include "npu_cores.h"

static void write_profiler_info(const struct gen *G, const struct rank_model *R, const char *path)
{
	const struct opts *o = G->o;
	struct sbuf b = {0};
	int64_t mono0 = 172163581670080LL + 1000003LL * R->r;
	int64_t start_unix = R->first_ts + R->off - 10 * MS;
	int64_t end_unix = R->last_end + R->off + 30 * MS;
	sbuf_adds(&b, "{\n    \"config\": {\n        \"common_config\": {\n            \"activities\": [\n"
	           "                \"ProfilerActivity.CPU\",\n                \"ProfilerActivity.NPU\"\n"
	           "            ],\n");
	if (o->marks == MARKS_PROFILERSTEP)
		sbuf_addf(&b,
		       "            \"schedule\": {\n                \"wait\": 0,\n                "
		       "\"active\": %d,\n"
		       "                \"warmup\": 0,\n                \"repeat\": 1,\n"
		       "                \"skip_first\": 0\n            },\n",
		       R->nst);
	sbuf_addf(&b,
	       "            \"record_shapes\": %s,\n            \"profile_memory\": false,\n"
	       "            \"with_stack\": %s,\n            \"with_flops\": false,\n"
	       "            \"with_modules\": false\n        },\n",
	       o->host_bare && !o->record_shapes ? "false" : "true", o->call_stack ? "true" : "false");
	sbuf_adds(&b, "        \"experimental_config\": {\n            \"_profiler_level\": \"Level1\",\n"
	           "            \"_aic_metrics\": \"ACL_AICORE_PIPE_UTILIZATION\",\n"
	           "            \"_l2_cache\": false,\n            \"_msprof_tx\": false,\n"
	           "            \"_data_simplification\": true,\n            \"record_op_args\": false,\n"
	           "            \"_export_type\": \"text\",\n            \"_op_attr\": false,\n"
	           "            \"_gc_detect_threshold\": null\n        }\n    },\n");
	sbuf_addf(&b,
	       "    \"start_info\": {\n        \"syscnt_enable\": true,\n        \"freq\": 100,\n"
	       "        \"start_cnt\": %" PRId64 ",\n        \"start_monotonic\": %" PRId64 "\n    },\n",
	       mono0 / 10, mono0);
	sbuf_addf(&b,
	       "    \"end_info\": {\n        \"collectionTimeEnd\": %" PRId64 ",\n"
	       "        \"MonotonicTimeEnd\": %" PRId64 "\n    },\n",
	       end_unix, mono0 + (end_unix - start_unix));
	sbuf_adds(&b, "    \"torch_npu_version\": \"2.7.1\",\n    \"cann_version\": \"8.3.RC1\",\n");
	/* both spellings occur in the wild */
	if (o->naming == NAME_RANK)
		sbuf_addf(&b, "    \"rank_id\": \"%d\"\n}", R->r);
	else
		sbuf_addf(&b, "    \"rank_id\": %d\n}", R->r);
	write_file(path, b.buf, b.len);
	free(b.buf);
}

static void write_metadata(const struct gen *G, const struct rank_model *R, const char *path)
{
	int nr = G->o->ranks;
	struct sbuf b = {0};
	/* torch_npu writes every variable it watches, "" where unset; --env sets some (and adds
	 * the ones it does not list, such as TASK_QUEUE_ENABLE) */
	static const char *const watched[] = {"ASCEND_GLOBAL_LOG_LEVEL", "HCCL_RDMA_TC", "HCCL_RDMA_SL",
	                                      "ACLNN_CACHE_LIMIT", "HOST_CACHE_CAPACITY", "ASCEND_ENHANCE_ENABLE",
	                                      "PYTORCH_NPU_ALLOC_CONF", "ASCEND_LAUNCH_BLOCKING"};
	const struct opts *o = G->o;
	bool used[8] = {false};
	sbuf_adds(&b, "{\n    \"ENV_VARIABLES\": {");
	for (size_t i = 0; i < sizeof watched / sizeof watched[0]; i++) {
		const char *val = "";
		size_t vl = 0;
		for (int k = 0; k < o->n_env; k++) {
			const char *eq = strchr(o->env[k], '=');
			if ((size_t)(eq - o->env[k]) == strlen(watched[i]) && !strncmp(o->env[k], watched[i], strlen(watched[i]))) {
				val = eq + 1;
				vl = strlen(val);
				used[k] = true;
			}
		}
		sbuf_addf(&b, "%s\n        \"%s\": \"%.*s\"", i ? "," : "", watched[i], (int)vl, val);
	}
	for (int k = 0; k < o->n_env; k++)
		if (!used[k]) {
			const char *eq = strchr(o->env[k], '=');
			sbuf_addf(&b, ",\n        \"%.*s\": \"%s\"", (int)(eq - o->env[k]), o->env[k], eq + 1);
		}
	sbuf_adds(&b, "\n    }");
	if (nr > 1) {
		sbuf_addf(&b,
		       ",\n    \"distributed_args\": {\n        \"tensor_model_parallel_size\": %d,\n"
		       "        \"pipeline_model_parallel_size\": 1,\n        \"data_parallel_size\": 1,\n"
		       "        \"rank\": %d,\n        \"world_size\": %d\n    },\n"
		       "    \"parallel_group_info\": {\n        \"10.174.216.241%%enp189s0f1_55000_0_%d\": "
		       "{\n"
		       "            \"group_name\": \"tp\",\n            \"group_rank\": %d,\n"
		       "            \"global_ranks\": [",
		       nr, R->r, nr, G->coll_group, R->r);
		for (int i = 0; i < nr; i++)
			sbuf_addf(&b, "%s%d", i ? ", " : "", i);
		sbuf_adds(&b, "]\n        }\n    }");
	}
	sbuf_adds(&b, "\n}");
	write_file(path, b.buf, b.len);
	free(b.buf);
}

static void write_raw_parts(const struct gen *G, const struct rank_model *R, const char *rdir)
{
	char p[4096], q[4096], name[128];
	path_join(p, sizeof p, rdir, "FRAMEWORK");
	mkdir_p(p);
	path_join(q, sizeof q, p, "torch.op_range");
	unsigned char blob[256];
	struct rng r;
	rng_init(&r, G->o->seed, 'W', (uint64_t)R->r, 0);
	for (size_t i = 0; i < sizeof blob; i++)
		blob[i] = (unsigned char)rng_next(&r);
	write_file(q, (const char *)blob, sizeof blob);
	char stamp[32], tag[17];
	format_stamp(stamp, sizeof stamp, G->base + R->off);
	for (int i = 0; i < 16; i++)
		tag[i] = (char)('A' + rng_range(&r, 0, 25));
	tag[16] = 0;
	snprintf(name, sizeof name, "PROF_%06d_%s_%s", R->r + 1, stamp, tag);
	path_join(p, sizeof p, rdir, name);
	path_join(q, sizeof q, p, "host");
	mkdir_p(q);
	path_join(p, sizeof p, q, "info.json");
	const char info[] = "{\"note\": \"raw capture placeholder written by ascprof-gen\"}\n";
	write_file(p, info, sizeof info - 1);
}

/* --chip: the device record msprof keeps in a PROF_ directory beside the export (what the
 * block_dim advice reads the core counts from) */
static void write_device_info(const struct gen *G, const struct rank_model *R, const char *rdir)
{
	struct npu_cores nc;
	npu_cores_from_chip(G->o->chip, &nc); /* checked when the option was read */
	char p[4096], q[4096], name[128], stamp[32];
	format_stamp(stamp, sizeof stamp, G->base + R->off);
	snprintf(name, sizeof name, "PROF_%06d_%s_DEVICEINFOABCDEF", R->r + 1, stamp);
	path_join(p, sizeof p, rdir, name);
	snprintf(name, sizeof name, "device_%d", R->dev);
	path_join(q, sizeof q, p, name);
	mkdir_p(q);
	snprintf(name, sizeof name, "info.json.%d", R->dev);
	path_join(p, sizeof p, q, name);
	char info[256];
	int n = snprintf(info, sizeof info, "{\"DeviceInfo\": [{\"id\": %d, \"ai_core_num\": %d, \"aiv_num\": %d}]}\n",
			 R->dev, nc.aic_lo, nc.aiv_lo);
	write_file(p, info, (size_t)n);
}

void write_rank(const struct gen *G, const struct rank_model *R, struct rank_out *ro)
{
	const struct opts *o = G->o;
	char rdir[4096], p[4096], od[4096];
	memset(ro, 0, sizeof *ro);
	path_join(rdir, sizeof rdir, o->out, R->dir);
	mkdir_p(rdir);
	if (!o->no_info) {
		char nm[64];
		snprintf(nm, sizeof nm, "profiler_info_%d.json", R->r);
		path_join(p, sizeof p, rdir, nm);
		write_profiler_info(G, R, p);
	}
	path_join(p, sizeof p, rdir, "profiler_metadata.json");
	write_metadata(G, R, p);
	if (o->raw) {
		write_raw_parts(G, R, rdir);
		return;
	}
	if (o->chip)
		write_device_info(G, R, rdir);
	path_join(od, sizeof od, rdir, "ASCEND_PROFILER_OUTPUT");
	mkdir_p(od);
	path_join(p, sizeof p, od, "trace_view.json");
	ro->trace_bytes = write_trace(G, R, p, &ro->t);
	if (o->truncate_at && ro->trace_bytes > (uint64_t)o->truncate_at) {
		if (truncate(p, o->truncate_at) != 0)
			die("truncate %s: %s", p, strerror(errno));
		ro->trace_bytes = (uint64_t)o->truncate_at;
		ro->truncated = true;
	} else {
		/* nothing cut: every element counts */
		ro->t.cut = 0;
	}
	path_join(p, sizeof p, od, "kernel_details.csv");
	ro->rows_kernel = write_kernel_details(G, R, p, &ro->ragged, &ro->excel);
	if (!o->default_export) { /* vLLM-Ascend's default export (data_simplification) has none */
		path_join(p, sizeof p, od, "operator_details.csv");
		ro->rows_oper = write_operator_details(G, R, p);
	}
	path_join(p, sizeof p, od, "op_statistic.csv");
	ro->rows_opstat = write_op_statistic(G, R, p);
	path_join(p, sizeof p, od, "api_statistic.csv");
	ro->rows_api = write_api_statistic(G, R, p);
	if (o->step_trace != ST_NONE) {
		path_join(p, sizeof p, od, "step_trace_time.csv");
		ro->rows_step = write_step_trace(G, R, p);
	}
	if (o->comm)
		write_comm(G, R, od, &ro->comm);
	if (o->memory)
		write_memory(G, R, od, ro);
	if (!o->no_done) {
		path_join(p, sizeof p, od, "analyse.done");
		write_file(p, "", 0);
	}
}
