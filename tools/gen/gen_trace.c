/* SPDX-License-Identifier: MIT */
/* ascprof-gen: the trace_view.json writer. */
#include "gen.h"

const char ph_chars[PH_COUNT] = {'X', 'M', 's', 'f', 'C'};

static int64_t lane_pid(const struct rank_model *R, enum lane_id ln)
{
	return R->proc_pid[lanes[ln].proc];
}

static int64_t lane_tid(const struct rank_model *R, enum lane_id ln)
{
	int t = lanes[ln].tid;
	return t == -1 ? R->tid_main : t == -2 ? R->tid_deq : t;
}

static void jk(struct tw *t, const char *k)
{
	struct out *o = t->o;
	size_t kl = strlen(k);
	out_need(o, kl + 16 + 4 * (size_t)t->depth);
	char *p = o->buf + o->len;
	if (!t->first[t->depth]) {
		*p++ = ',';
		if (t->style == JS_PY)
			*p++ = ' ';
	}
	t->first[t->depth] = false;
	if (t->style == JS_PRETTY) {
		*p++ = '\n';
		memset(p, ' ', 4 * (size_t)t->depth);
		p += 4 * t->depth;
	}
	*p++ = '"';
	memcpy(p, k, kl);
	p += kl;
	*p++ = '"';
	*p++ = ':';
	if (t->style != JS_MIN)
		*p++ = ' ';
	o->len = (size_t)(p - o->buf);
}

static void jopen(struct tw *t)
{
	out_chr(t->o, '{');
	t->first[++t->depth] = true;
}

static void jclose(struct tw *t)
{
	if (t->style == JS_PRETTY && !t->first[t->depth]) {
		out_chr(t->o, '\n');
		out_spaces(t->o, 4 * (t->depth - 1));
	}
	out_chr(t->o, '}');
	t->depth--;
}

static void kv_s(struct tw *t, const char *k, const char *v)
{
	jk(t, k);
	out_json_str(t->o, v);
}

static void kv_i(struct tw *t, const char *k, int64_t v)
{
	jk(t, k);
	out_i64(t->o, v);
}

static void kv_ts(struct tw *t, const char *k, int64_t ns)
{
	jk(t, k);
	out_chr(t->o, '"');
	out_us3(t->o, ns);
	out_chr(t->o, '"');
}

static void kv_us(struct tw *t, const char *k, int64_t ns)
{
	jk(t, k);
	out_us3(t->o, ns);
}

static void el_begin(struct tw *t)
{
	struct out *o = t->o;
	if (!t->first_elem) {
		out_chr(o, ',');
		if (t->style == JS_PY)
			out_chr(o, ' ');
	}
	t->first_elem = false;
	if (t->style == JS_PRETTY) {
		out_chr(o, '\n');
		out_spaces(o, 4 * t->depth);
	}
	jopen(t);
}

/* Close an element and count it if it lies wholly within the cut. */
static void el_end(struct tw *t, enum ph_idx ph, int lane, int64_t ts, int64_t end)
{
	jclose(t);
	if (t->cut && out_pos(t->o) > t->cut)
		return;
	t->n_ph[ph]++;
	if (ph == PH_X) {
		if (lane >= 0)
			t->lane_x[lane]++;
		if (!t->have_x || ts < t->x_min)
			t->x_min = ts;
		if (!t->have_x || end > t->x_max)
			t->x_max = end;
		t->have_x = true;
	}
}

/* Host-side X event (torch_npu key order); the caller adds args (or not) and calls el_end. */
static void x_host_begin(struct tw *t, enum lane_id ln, const char *name, int64_t ts, int64_t dur,
                         const char *cat)
{
	const struct rank_model *R = t->R;
	el_begin(t);
	kv_s(t, "ph", "X");
	kv_s(t, "name", name);
	kv_i(t, "pid", lane_pid(R, ln));
	kv_i(t, "tid", lane_tid(R, ln));
	kv_ts(t, "ts", ts + R->off);
	kv_us(t, "dur", dur);
	kv_s(t, "cat", cat);
}

/* Device/CANN-side X event (msprof key order: name, pid, tid, ts, dur, args, ph). */
static void x_dev_begin(struct tw *t, enum lane_id ln, const char *name, int64_t ts, int64_t dur)
{
	const struct rank_model *R = t->R;
	el_begin(t);
	kv_s(t, "name", name);
	kv_i(t, "pid", lane_pid(R, ln));
	kv_i(t, "tid", lane_tid(R, ln));
	kv_ts(t, "ts", ts + R->off);
	kv_us(t, "dur", dur);
}

static void x_dev_end(struct tw *t, enum lane_id ln, int64_t ts, int64_t dur)
{
	kv_s(t, "ph", "X");
	el_end(t, PH_X, ln, ts + t->R->off, ts + dur + t->R->off);
}

/* dims: the Input Dims written with kind's other args (kind >= 0) */
static void cpu_op_dims(struct tw *t, const char *name, int64_t ts, int64_t dur, int kind, const char *dims)
{
	x_host_begin(t, LN_PY_MAIN, name, ts, dur, "cpu_op");
	jk(t, "args");
	jopen(t);
	kv_i(t, "Sequence number", -1);
	kv_i(t, "Fwd thread id", 0);
	if (kind >= 0) {
		kv_s(t, "Input Dims", dims);
		kv_s(t, "Input type", t->G->types_trace[kind]);
		if (t->G->o->call_stack)
			kv_s(t, "Call stack", t->G->stack_json[kind]);
	}
	jclose(t);
	el_end(t, PH_X, LN_PY_MAIN, ts + t->R->off, ts + dur + t->R->off);
}

static void cpu_op(struct tw *t, const char *name, int64_t ts, int64_t dur, int kind, int phase)
{
	cpu_op_dims(t, name, ts, dur, kind, kind >= 0 ? t->G->dims_trace[kind][phase] : NULL);
}

static void pyfunc(struct tw *t, const char *name, int64_t ts, int64_t dur, int64_t parent)
{
	x_host_begin(t, LN_PY_MAIN, name, ts, dur, "python_function");
	jk(t, "args");
	jopen(t);
	kv_i(t, "Python id", ++t->py_id);
	kv_i(t, "Python parent id", parent);
	jclose(t);
	el_end(t, PH_X, LN_PY_MAIN, ts + t->R->off, ts + dur + t->R->off);
}

static void flow_torch(struct tw *t, char ph, const char *name, int64_t id, enum lane_id ln, int64_t ts,
                       const char *cat)
{
	char phs[2] = {ph, 0};
	el_begin(t);
	kv_s(t, "ph", phs);
	kv_s(t, "bp", "e");
	kv_s(t, "name", name);
	kv_i(t, "id", id);
	kv_i(t, "pid", lane_pid(t->R, ln));
	kv_i(t, "tid", lane_tid(t->R, ln));
	kv_ts(t, "ts", ts + t->R->off);
	kv_s(t, "cat", cat);
	el_end(t, ph == 's' ? PH_S : PH_F, -1, 0, 0);
}

static void meta_py(struct tw *t, const char *what, int64_t tid, const char *key, const char *sval,
                    int64_t ival, int lane, int proc)
{
	el_begin(t);
	kv_s(t, "ph", "M");
	kv_s(t, "name", what);
	kv_i(t, "pid", t->R->pid);
	kv_i(t, "tid", tid);
	jk(t, "args");
	jopen(t);
	if (sval)
		kv_s(t, key, sval);
	else
		kv_i(t, key, ival);
	jclose(t);
	el_end(t, PH_M, -1, 0, 0);
	if (!t->cut || out_pos(t->o) <= t->cut) {
		if (lane >= 0)
			t->lane_named[lane] = true;
		if (proc >= 0)
			t->proc_named[proc] = true;
	}
}

static void meta_dev(struct tw *t, enum proc_id p, const char *what, int64_t tid, const char *key,
                     const char *sval, int64_t ival, int lane)
{
	el_begin(t);
	kv_s(t, "name", what);
	kv_i(t, "pid", t->R->proc_pid[p]);
	kv_i(t, "tid", tid);
	jk(t, "args");
	jopen(t);
	if (sval)
		kv_s(t, key, sval);
	else
		kv_i(t, key, ival);
	jclose(t);
	kv_s(t, "ph", "M");
	el_end(t, PH_M, -1, 0, 0);
	if (!t->cut || out_pos(t->o) <= t->cut) {
		if (lane >= 0)
			t->lane_named[lane] = true;
		if (!strcmp(what, "process_name"))
			t->proc_named[p] = true;
	}
}

bool lane_on(const struct gen *G, enum lane_id ln)
{
	return !lanes[ln].multi_rank_only || G->o->ranks > 1;
}

void thread_label(const struct rank_model *R, enum lane_id ln, char *buf, size_t n)
{
	if (lanes[ln].name)
		snprintf(buf, n, "%s", lanes[ln].name);
	else
		snprintf(buf, n, "Thread %" PRId64, lane_tid(R, ln));
}

static void meta_device_procs(struct tw *t)
{
	static const enum proc_id order[] = {PR_HW, PR_HBM, PR_HCCL, PR_CANN, PR_OV, PR_FREQ};
	const struct gen *G = t->G;
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		enum proc_id p = order[i];
		if (p == PR_HCCL && G->o->ranks == 1)
			continue;
		meta_dev(t, p, "process_name", 0, "name", procs[p].name, 0, -1);
		for (int ln = 0; ln < LN_COUNT; ln++) {
			if (lanes[ln].proc != p || !lane_on(G, (enum lane_id)ln))
				continue;
			char nm[64];
			thread_label(t->R, (enum lane_id)ln, nm, sizeof nm);
			int64_t tid = lane_tid(t->R, (enum lane_id)ln);
			meta_dev(t, p, "thread_name", tid, "name", nm, 0, ln);
			meta_dev(t, p, "thread_sort_index", tid, "sort_index", NULL, tid, -1);
		}
		meta_dev(t, p, "process_labels", 0, "labels", procs[p].labels, 0, -1);
		meta_dev(t, p, "process_sort_index", 0, "sort_index", NULL, procs[p].sort, -1);
	}
}

static void host_id_string(const struct rank_model *R, const struct unit *u, char *buf, size_t n)
{
	if (u->long_id) /* CANN ids reach 20 digits, beyond uint64 */
		snprintf(buf, n, "4000%016" PRId64, (int64_t)u->conn * 1000003 + R->r);
	else
		snprintf(buf, n, "%d", u->conn);
}

void cann_x(struct tw *t, const char *name, int64_t ts, int64_t dur, const char *mode,
                   const char *level, const char *id, const char *item, int32_t conn)
{
	x_dev_begin(t, LN_CANN, name, ts, dur);
	jk(t, "args");
	jopen(t);
	kv_i(t, "Thread Id", t->R->tid_deq);
	kv_s(t, "Mode", mode);
	kv_s(t, "level", level);
	kv_s(t, "id", id);
	kv_s(t, "item_id", item);
	kv_i(t, "connection_id", conn);
	jclose(t);
	x_dev_end(t, LN_CANN, ts, dur);
}

static void hw_task(struct tw *t, enum lane_id ln, const char *name, int64_t ts, int64_t dur,
                    const char *task_type, int32_t task, int64_t subtask, int32_t conn)
{
	x_dev_begin(t, ln, name, ts, dur);
	jk(t, "args");
	jopen(t);
	kv_i(t, "Model Id", t->replayed ? 1 : 4294967295LL);
	kv_s(t, "Task Type", task_type);
	kv_i(t, "Physic Stream Id", lanes[ln].tid);
	kv_i(t, "Task Id", task);
	kv_i(t, "Batch Id", 0);
	kv_i(t, "Subtask Id", subtask);
	kv_i(t, "connection_id", conn);
	jclose(t);
	x_dev_end(t, ln, ts, dur);
}

static void plane_task(struct tw *t, const char *name, int64_t ts, int64_t dur, const struct unit *u, int ctx,
                       int64_t bytes)
{
	const struct rank_model *R = t->R;
	x_dev_begin(t, LN_HCCL_P0, name, ts, dur);
	jk(t, "args");
	jopen(t);
	kv_s(t, "notify_id", "18446744073709551615");
	/* bytes / ns = GB/s; keep three decimals with integer math */
	int64_t bw_milli = dur ? bytes * 1000 / dur : 0;
	jk(t, "duration estimated(us)");
	out_us3(t->o, dur * 97 / 100);
	kv_i(t, "stream id", 4);
	kv_i(t, "task id", u->task + 1);
	kv_i(t, "context id", ctx);
	kv_s(t, "task type", name);
	kv_i(t, "src rank", R->r);
	kv_i(t, "dst rank", (R->r + 1) % t->G->o->ranks);
	kv_s(t, "transport type", "SDMA");
	kv_i(t, "size(Byte)", bytes);
	kv_s(t, "data type", !strcmp(name, "Memcpy") ? "INVALID_TYPE" : "FP16");
	kv_s(t, "link type", "HCCS");
	jk(t, "bandwidth(GB/s)");
	out_milli(t->o, bw_milli);
	kv_i(t, "model id", 4294967295LL);
	jclose(t);
	x_dev_end(t, LN_HCCL_P0, ts, dur);
}

static void overlap_x(struct tw *t, enum lane_id ln, int64_t s, int64_t e)
{
	x_dev_begin(t, ln, lanes[ln].name, s, e - s);
	x_dev_end(t, ln, s, e - s);
}

static int64_t step_window_end(const struct rank_model *R, int k)
{
	return k + 1 < R->nst ? R->st[k + 1].hs : INT64_MAX;
}

static void write_host_section(struct tw *t)
{
	const struct gen *G = t->G;
	const struct rank_model *R = t->R;
	char nm[64];
	/* --shape vllm with --edge-us: no schedule() spans (with_stack=False), so the host work
	 * at the window's edges is a torch op of the scheduler's, with no device task */
	bool edges = G->o->host_bare && G->o->edge_ns > 0;
	if (edges)
		cpu_op(t, VLLM_EDGE_OP, R->sch0_ts, R->sch0_end - R->sch0_ts, -1, 0);
	for (int k = 0; k < R->nst; k++) {
		const struct step *st = &R->st[k];
		if (edges && k == R->nst - 1)
			cpu_op(t, VLLM_EDGE_OP, st->sch_ts, st->sch_end - st->sch_ts, -1, 0);
		if (G->o->marks == MARKS_PROFILERSTEP) {
			snprintf(nm, sizeof nm, "ProfilerStep#%d", k + 1);
			cpu_op(t, nm, st->hs, st->he - st->hs, -1, 0);
		}
		if (G->o->shape.annotate) {
			annotation_name(st, nm, sizeof nm);
			cpu_op(t, nm, st->fwd_ts, st->fwd_end - st->fwd_ts, -1, 0);
		}
		/* vLLM-Ascend records no shapes (record_shapes=False) unless asked (--record-shapes) */
		bool dims = !G->o->host_bare || G->o->record_shapes;
		for (size_t i = 0; i < st->nu; i++) {
			const struct unit *u = &R->u[st->u0 + i];
			const struct kind *kd = &kinds[u->kind];
			/* a MoE unit's grouped matmul carries its own tokens, as kernel_details does */
			char *own = dims && u->moe_tok > 0 ? dims_text(G, st, u, kd->in_shape) : NULL;
			for (int lv = 0; lv < kd->nest && !u->graph; lv++)
				cpu_op_dims(t, kd->host[lv], u->c_ts + lv * 1500, u->c_dur - lv * 2500, dims ? u->kind : -1,
				            own ? own : G->dims_trace[u->kind][st->prefill]);
			free(own);
		}
		for (size_t i = 0; i < st->nu; i++) {
			const struct unit *u = &R->u[st->u0 + i];
			const struct kind *kd = &kinds[u->kind];
			if (u->graph)
				continue;
			x_host_begin(t, LN_PY_MAIN, "Enqueue", u->eq_ts, u->eq_dur, "enqueue");
			jk(t, "args");
			jopen(t);
			kv_i(t, "correlation_id", u->corr);
			jclose(t);
			el_end(t, PH_X, LN_PY_MAIN, u->eq_ts + R->off, u->eq_ts + u->eq_dur + R->off);
			flow_torch(t, 's', "enqueue_to_dequeue", u->corr, LN_PY_MAIN, u->eq_ts,
			           "async_task_queue");
			snprintf(nm, sizeof nm, "Dequeue@%s", kd->deq);
			x_host_begin(t, LN_PY_DEQ, nm, u->dq_ts, u->dq_dur, "dequeue");
			jk(t, "args");
			jopen(t);
			kv_i(t, "correlation_id", u->corr);
			jclose(t);
			el_end(t, PH_X, LN_PY_DEQ, u->dq_ts + R->off, u->dq_ts + u->dq_dur + R->off);
			flow_torch(t, 'f', "enqueue_to_dequeue", u->corr, LN_PY_DEQ, u->dq_ts,
			           "async_task_queue");
		}
	}
	/* the Python process's metadata sits after its X events, as torch_npu writes it */
	meta_py(t, "process_name", 0, "name", "Python", 0, -1, PR_PY);
	meta_py(t, "process_labels", 0, "labels", "CPU", 0, -1, -1);
	meta_py(t, "process_sort_index", 0, "sort_index", NULL, 0, -1, -1);
	for (int ln = LN_PY_MAIN; ln <= LN_PY_DEQ; ln++) {
		int64_t tid = lane_tid(R, (enum lane_id)ln);
		thread_label(R, (enum lane_id)ln, nm, sizeof nm);
		meta_py(t, "thread_name", tid, "name", nm, 0, ln, -1);
		meta_py(t, "thread_sort_index", tid, "sort_index", NULL, tid, -1, -1);
	}
	/* python_function spans: schedule(), the step marker, _prepare_inputs, _model_forward */
	static const char *const sched = "vllm/v1/core/sched/scheduler.py(225): schedule";
	static const char *const exec = "vllm_ascend/worker/model_runner_v1.py(1520): execute_model";
	static const char *const prep = "vllm_ascend/worker/model_runner_v1.py(1301): _prepare_inputs";
	static const char *const fwd = "vllm_ascend/worker/model_runner_v1.py(1402): _model_forward";
	if (G->o->host_bare)
		return; /* with_stack=False */
	pyfunc(t, sched, R->sch0_ts, R->sch0_end - R->sch0_ts, 0);
	for (int k = 0; k < R->nst; k++) {
		const struct step *st = &R->st[k];
		int64_t parent = 0;
		if (G->o->marks == MARKS_ENGINE) {
			pyfunc(t, exec, st->hs, st->he - st->hs, 0);
			parent = t->py_id;
		}
		if (st->prep_end > st->prep_ts)
			pyfunc(t, prep, st->prep_ts, st->prep_end - st->prep_ts, parent);
		pyfunc(t, fwd, st->fwd_ts, st->fwd_end - st->fwd_ts, parent);
		int64_t fwd_id = t->py_id;
		if (st->evil_end)
			pyfunc(t, HOSTILE_PYFUNC, st->evil_ts, st->evil_end - st->evil_ts, fwd_id);
		pyfunc(t, sched, st->sch_ts, st->sch_end - st->sch_ts, 0);
	}
}

/* --alloc-storm N: where step k's N device allocations go: inside its schedule() call,
 * while the device idles before the next step (the host busy and host-only time stay as
 * the model has them); each a quarter of its slot in, half a slot long. Returns N, or 0
 * when that stretch is too short (or k is the last step). */
int alloc_storm_slots(const struct gen *G, const struct rank_model *R, int k, int64_t *t0, int64_t *slot)
{
	int n = G->o->alloc_storm;
	if (!n || k + 1 >= R->nst)
		return 0;
	const struct step *st = &R->st[k];
	int64_t lo = st->last_dev > st->sch_ts ? st->last_dev : st->sch_ts;
	int64_t hi = R->st[k + 1].first_dev < st->sch_end ? R->st[k + 1].first_dev : st->sch_end;
	if (hi - lo < 4 * n)
		return 0;
	*t0 = lo;
	*slot = (hi - lo) / n;
	return n;
}

static void alloc_storm(struct tw *t, int k)
{
	int64_t t0, slot;
	for (int i = 0, n = alloc_storm_slots(t->G, t->R, k, &t0, &slot); i < n; i++)
		cann_x(t, "AscendCL@aclrtMalloc", t0 + i * slot + slot / 4, slot / 2, "ACL_RTS", "acl", "aclrtMalloc",
		       "0", 0);
}

static void write_device_section(struct tw *t)
{
	const struct gen *G = t->G;
	const struct rank_model *R = t->R;
	char nm[96];
	size_t ic = 0, in = 0, iff = 0;
	for (int k = 0; k < R->nst; k++) {
		const struct step *st = &R->st[k];
		for (size_t i = 0; i < st->nu; i++) {
			const struct unit *u = &R->u[st->u0 + i];
			const struct kind *kd = &kinds[u->kind];
			t->replayed = u->graph;
			if (u->rp_end) /* one replay launches a run of graph units */
				cann_x(t, "AscendCL@aclmdlRIExecuteAsync", u->dq_ts, u->rp_end - u->dq_ts,
				       "ACL_RTS", "acl", "aclmdlRIExecuteAsync", "0", u->acl_conn);
			snprintf(nm, sizeof nm, "AscendCL@%s", kd->acl);
			if (!u->graph)
				cann_x(t, nm, u->acl_ts, u->acl_dur, kd->acl_mode, "acl", kd->acl, "0", u->acl_conn);
			if (kd->dc == DC_COMPUTE) {
				if (!u->graph)
					cann_x(t, "Node@launch", u->nl_ts, u->nl_dur, "launch", "node", "0", kd->kernel,
					       u->conn);
				hw_task(t, LN_S2, kd->kernel, u->k_ts, u->k_dur, kd->task_type, u->task,
				        4294967295LL, u->conn);
				if (u->s3_dur)
					hw_task(t, LN_S3, kinds[K_S3].kernel, u->s3_ts, u->s3_dur,
					        kinds[K_S3].task_type, u->s3_task, 4294967295LL, u->s3_conn);
				if (u->ev_ts)
					hw_task(t, LN_S3, "EVENT_RECORD", u->ev_ts, US, "EVENT_RECORD_SQE",
					        u->ev_task, 4294967295LL, u->ev_conn);
			} else if (kd->dc == DC_COMM) {
				if (!u->graph)
					cann_x(t, "Hccl@Launch_Ffts", u->nl_ts, u->nl_dur, "master", "hccl", "0",
					       "Launch_Ffts", u->conn);
				int64_t a = u->k_ts, E = u->k_ts + u->k_dur, T = u->xfer;
				coll_name(nm, sizeof nm, G, u);
				x_dev_begin(t, LN_HCCL_G0, nm, a, E - a);
				jk(t, "args");
				jopen(t);
				kv_i(t, "connection_id", u->conn);
				kv_i(t, "model id", 4294967295LL);
				kv_s(t, "data_type", "FP16");
				kv_s(t, "alg_type", "MESH-RING");
				kv_i(t, "count", step_coll_tokens(G, st) * 4096);
				jclose(t);
				x_dev_end(t, LN_HCCL_G0, a, E - a);
				int64_t bytes = step_coll_tokens(G, st) * 4096 * 2;
				plane_task(t, "Memcpy", E - T, T / 3, u, 1, bytes);
				plane_task(t, "Reduce_Inline", E - T + T / 2, T / 4, u, 2, bytes);
				if (E - T > a)
					hw_task(t, LN_S4, "Notify Wait", a, E - T - a, "Notify Wait", u->task,
					        3, u->conn);
				hw_task(t, LN_S4, "SDMA", E - T, T, "SDMA", u->task + 1, 0, u->conn);
				overlap_x(t, LN_OV_COMM, a, E);
			} else {
				hw_task(t, LN_S2, kd->kernel, u->k_ts, u->k_dur, kd->task_type, u->task,
				        4294967295LL, u->conn);
			}
			t->replayed = false;
		}
		alloc_storm(t, k);
		/* Overlap Analysis pieces that start inside this step's window */
		int64_t wend = step_window_end(R, k);
		for (; ic < R->comp_m.n && R->comp_m.v[ic].s < wend; ic++)
			overlap_x(t, LN_OV_COMP, R->comp_m.v[ic].s, R->comp_m.v[ic].e);
		for (; in < R->nov.n && R->nov.v[in].s < wend; in++)
			overlap_x(t, LN_OV_NOV, R->nov.v[in].s, R->nov.v[in].e);
		for (; iff < R->freeg.n && R->freeg.v[iff].s < wend; iff++)
			overlap_x(t, LN_OV_FREE, R->freeg.v[iff].s, R->freeg.v[iff].e);
	}
}

static void write_flow_section(struct tw *t)
{
	const struct rank_model *R = t->R;
	char id[40], nm[64];
	for (size_t i = 0; i < R->nu; i++) {
		const struct unit *u = &R->u[i];
		const struct kind *kd = &kinds[u->kind];
		if (kd->dc == DC_COMM || u->graph) /* graph replays carry no launch flows */
			continue;
		int64_t inner = u->c_ts + (kd->nest - 1) * 1500;
		int64_t fid = u->k_ts + R->off; /* torch_npu: the kernel's start in ns */
		flow_torch(t, 's', "torch_to_npu", fid, LN_PY_MAIN, inner, "async_npu");
		flow_torch(t, 'f', "torch_to_npu", fid, LN_S2, u->k_ts, "async_npu");
	}
	for (size_t i = 0; i < R->nu; i++) {
		const struct unit *u = &R->u[i];
		const struct kind *kd = &kinds[u->kind];
		if (u->graph)
			continue;
		host_id_string(R, u, id, sizeof id);
		snprintf(nm, sizeof nm, "HostToDevice%s", id);
		int64_t src = kd->dc == DC_COMPUTE || kd->dc == DC_COMM ? u->nl_ts : u->acl_ts;
		enum lane_id dst = kd->dc == DC_COMM ? LN_HCCL_G0 : LN_S2;
		el_begin(t);
		kv_s(t, "name", nm);
		kv_s(t, "ph", "s");
		kv_s(t, "cat", "HostToDevice");
		kv_s(t, "id", id);
		kv_i(t, "pid", lane_pid(R, LN_CANN));
		kv_i(t, "tid", lane_tid(R, LN_CANN));
		kv_ts(t, "ts", src + R->off);
		el_end(t, PH_S, -1, 0, 0);
		el_begin(t);
		kv_s(t, "name", nm);
		kv_s(t, "ph", "f");
		kv_s(t, "id", id);
		kv_ts(t, "ts", u->k_ts + R->off);
		kv_s(t, "cat", "HostToDevice");
		kv_i(t, "pid", lane_pid(R, dst));
		kv_i(t, "tid", lane_tid(R, dst));
		kv_s(t, "bp", "e");
		el_end(t, PH_F, -1, 0, 0);
	}
}

static void write_counter_section(struct tw *t)
{
	const struct rank_model *R = t->R;
	struct rng r;
	rng_init(&r, t->G->o->seed, 'C', (uint64_t)R->r, 0);
	int64_t kb = 9069036;
	for (int64_t ts = R->first_ts; ts <= R->last_end; ts += rng_range(&r, 1000 * US, 1400 * US)) {
		el_begin(t);
		kv_s(t, "name", "AI Core Freq");
		kv_ts(t, "ts", ts + R->off);
		kv_i(t, "pid", R->proc_pid[PR_FREQ]);
		kv_i(t, "tid", 0);
		jk(t, "args");
		jopen(t);
		/* a routine dip now and then; --freq-drop: a throttled stretch in the middle (the
		 * draw is made either way, so that the other values keep theirs) */
		int64_t mhz = rng_permille(&r, 50) ? 1650 : 1800, span = R->last_end - R->first_ts;
		int64_t mid = R->first_ts + span / 2, half = span * t->G->o->freq_drop_pct / 200;
		if (t->G->o->freq_drop_pct && ts >= mid - half && ts < mid + half)
			mhz = 800;
		kv_i(t, "MHz", mhz);
		jclose(t);
		kv_s(t, "ph", "C");
		el_end(t, PH_C, -1, 0, 0);
		/* HBM uses the top-level processName key instead of name, as some exports do */
		kb += rng_range(&r, -2048, 2048);
		el_begin(t);
		kv_s(t, "processName", "HBM");
		kv_ts(t, "ts", ts + 40 * US + R->off);
		kv_i(t, "pid", R->proc_pid[PR_HBM]);
		kv_i(t, "tid", 0);
		jk(t, "args");
		jopen(t);
		jk(t, "KB");
		out_i64(t->o, kb);
		out_str(t->o, ".0");
		jclose(t);
		kv_s(t, "ph", "C");
		el_end(t, PH_C, -1, 0, 0);
	}
}

/* Writes one rank's trace_view.json (path NULL: count bytes only) and fills the tallies. */
uint64_t write_trace(const struct gen *G, const struct rank_model *R, const char *path, struct tw *t)
{
	struct out o;
	out_open(&o, path, (size_t)8 << 20);
	memset(t, 0, sizeof *t);
	t->o = &o;
	t->G = G;
	t->R = R;
	t->style = G->o->style;
	t->first_elem = true;
	t->cut = (uint64_t)G->o->truncate_at;
	bool pretty = t->style == JS_PRETTY;
	if (G->o->wrapper) {
		if (t->style == JS_PY)
			out_str(&o, "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [");
		else if (t->style == JS_MIN)
			out_str(&o, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
		else
			out_str(&o, "{\n    \"displayTimeUnit\": \"ns\",\n    \"traceEvents\": [");
		t->depth = 2;
	} else {
		out_chr(&o, '[');
		t->depth = 1;
	}
	write_host_section(t);
	meta_device_procs(t);
	write_device_section(t);
	write_flow_section(t);
	write_counter_section(t);
	if (pretty)
		out_chr(&o, '\n');
	if (G->o->wrapper) {
		if (t->style == JS_PY)
			out_str(&o, "], \"otherData\": {\"version\": \"x\"}}");
		else if (t->style == JS_MIN)
			out_str(&o, "],\"otherData\":{\"version\":\"x\"}}");
		else
			out_str(&o, "    ],\n    \"otherData\": {\n        \"version\": \"x\"\n    }\n}");
	} else {
		out_chr(&o, ']');
	}
	uint64_t size = out_pos(&o);
	out_close(&o);
	return size;
}
