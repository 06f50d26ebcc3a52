/* SPDX-License-Identifier: MIT */
/* ascprof-gen: op kinds (what one host dispatch unit looks like on every lane) and --shape parsing. */
#include "gen.h"

/* ESC [31m, OSC 52 clipboard write, BEL, CR, C1 CSI (U+009B), RTL override (U+202E). Split
 * literals keep hex escapes from swallowing the letters after them. */
#define HOSTILE_NAME                                                                                         \
	"evil::\x1b[31mred\x1b[0m\x1b]52;c;aGk=\x07"                                                         \
	"bell\x07"                                                                                           \
	"cr\rc1\xc2\x9b"                                                                                     \
	"2Jbidi\xe2\x80\xae"                                                                                 \
	"lortnoc"
#define HOSTILE_ARG "\x1b[2J\x1b[H\x1b]0;pwned\x07"

/* clang-format off */
const struct kind kinds[K_COUNT] = {
	[K_H2D] = {{"aten::to", "aten::_to_copy", "aten::copy_"}, 3, "aclrtMemcpyAsync", "ACL_RTS",
		   "acl_memcpy_host_to_device", "MEMCPY_ASYNC", NULL, "PCIE_DMA_SQE", DC_H2D, 0, 0, 0,
		   "#", "INT32", "ND", "#", "INT32", "ND", "int;int",
		   "vllm_ascend/worker/model_runner_v1.py(1342): _prepare_inputs"},
	[K_D2H] = {{"aten::to", "aten::_to_copy", "aten::copy_"}, 3, "aclrtMemcpyAsync", "ACL_RTS",
		   "acl_memcpy_device_to_host", "MEMCPY_ASYNC", NULL, "PCIE_DMA_SQE", DC_D2H, 0, 0, 0,
		   "#", "INT64", "ND", "#", "INT64", "ND", "long int;long int",
		   "vllm_ascend/worker/model_runner_v1.py(1611): execute_model"},
	[K_EMBED] = {{"aten::embedding", "aten::index_select"}, 2, "aclnnIndexSelect", "ACL_NN",
		     "aclnnIndexSelect", "GatherV2", "GatherV2", "AI_VECTOR_CORE", DC_COMPUTE, 2, 40, 0,
		     "151936,4096;#", "BF16;INT64", "ND;ND", "#,4096", "BF16", "ND",
		     "c10::BFloat16;long int", "vllm/model_executor/layers/vocab_parallel_embedding.py(452): forward"},
	[K_RMSNORM] = {{"aten::rms_norm"}, 1, "aclnnRmsNorm", "ACL_NN", "aclnnRmsNorm", "RmsNorm",
		       "RmsNorm", "AI_VECTOR_CORE", DC_COMPUTE, 2, 40, 0, "#,4096;4096", "BF16;BF16",
		       "ND;ND", "#,4096", "BF16", "ND", "c10::BFloat16;c10::BFloat16",
		       "vllm_ascend/ops/layernorm.py(86): forward_oot"},
	[K_LINEAR] = {{"aten::linear", "aten::mm"}, 2, "aclnnMm", "ACL_NN", "aclnnMm", "MatMulV2",
		      "MatMulV2", "AI_CORE", DC_COMPUTE, 12, 24, 0, "#,4096;4096,4096", "BF16;BF16",
		      "ND;ND", "#,4096", "BF16", "ND", "c10::BFloat16;c10::BFloat16",
		      "vllm_ascend/ops/linear.py(223): forward"},
	[K_ROPE] = {{"npu::npu_apply_rotary_pos_emb"}, 1, "aclnnApplyRotaryPosEmb", "ACL_NN",
		    "aclnnApplyRotaryPosEmb", "ApplyRotaryPosEmb", "ApplyRotaryPosEmb", "AI_VECTOR_CORE",
		    DC_COMPUTE, 1, 40, 0, "#,32,128;#,8,128;#,1,128;#,1,128", "BF16;BF16;BF16;BF16",
		    "ND;ND;ND;ND", "#,32,128;#,8,128", "BF16;BF16", "ND;ND",
		    "c10::BFloat16;c10::BFloat16;c10::BFloat16;c10::BFloat16",
		    "vllm_ascend/ops/rotary_embedding.py(117): forward_oot"},
	[K_CACHE] = {{"npu::_npu_reshape_and_cache"}, 1, "aclnnReshapeAndCache", "ACL_NN",
		     "aclnnReshapeAndCache", "ReshapeAndCache", "ReshapeAndCache", "AI_VECTOR_CORE",
		     DC_COMPUTE, 1, 40, 0, "#,8,128;#,8,128;2048,128,8,128;2048,128,8,128;#",
		     "BF16;BF16;BF16;BF16;INT32", "ND;ND;ND;ND;ND", "2048,128,8,128;2048,128,8,128",
		     "BF16;BF16", "ND;ND", "c10::BFloat16;c10::BFloat16;c10::BFloat16;c10::BFloat16;int",
		     "vllm_ascend/attention/attention_v1.py(512): forward"},
	[K_ATTN] = {{"npu::npu_fused_infer_attention_score"}, 1, "aclnnFusedInferAttentionScoreV3",
		    "ACL_NN", "aclnnFusedInferAttentionScoreV3", "FusedInferAttentionScore",
		    "FusedInferAttentionScore", "MIX_AIC", DC_COMPUTE, 8, 24, 48,
		    "#,32,128;2048,128,1024;2048,128,1024", "BF16;BF16;BF16", "ND;ND;ND", "#,32,128",
		    "BF16", "ND", "c10::BFloat16;c10::BFloat16;c10::BFloat16",
		    "vllm_ascend/attention/attention_v1.py(430): _forward_decode_only"},
	[K_ADD] = {{"aten::add"}, 1, "aclnnAdd", "ACL_NN", "aclnnAdd", "Add", "Add", "AI_VECTOR_CORE",
		   DC_COMPUTE, 1, 40, 0, "#,4096;#,4096", "BF16;BF16", "ND;ND", "#,4096", "BF16", "ND",
		   "c10::BFloat16;c10::BFloat16;Scalar", "vllm/model_executor/models/qwen2.py(245): forward"},
	[K_SILU] = {{"aten::silu"}, 1, "aclnnSilu", "ACL_NN", "aclnnSilu", "Silu", "Silu",
		    "AI_VECTOR_CORE", DC_COMPUTE, 1, 40, 0, "#,11008", "BF16", "ND", "#,11008", "BF16",
		    "ND", "c10::BFloat16", "vllm/model_executor/layers/activation.py(78): forward_native"},
	[K_MUL] = {{"aten::mul"}, 1, "aclnnMul", "ACL_NN", "aclnnMul", "Mul", "Mul", "AI_VECTOR_CORE",
		   DC_COMPUTE, 1, 40, 0, "#,11008;#,11008", "BF16;BF16", "ND;ND", "#,11008", "BF16",
		   "ND", "c10::BFloat16;c10::BFloat16", "vllm/model_executor/layers/activation.py(80): forward_native"},
	[K_ARGMAX] = {{"aten::argmax"}, 1, "aclnnArgMax", "ACL_NN", "aclnnArgMax", "ArgMaxV2",
		      "ArgMaxV2", "AI_VECTOR_CORE", DC_COMPUTE, 2, 40, 0, "#,151936", "FLOAT", "ND", "#",
		      "INT64", "ND", "float;Scalar;Scalar", "vllm/v1/sample/sampler.py(123): greedy_sample"},
	[K_QMM] = {{"custom::量化矩阵乘"}, 1, "aclnnQuantMatmulV4", "ACL_NN", "aclnnQuantMatmulV4",
		   "量化矩阵乘_ＱＭＭ", "量化矩阵乘", "AI_CORE", DC_COMPUTE, 10, 24, 0,
		   "#,4096;4096,4096;4096", "INT8;INT8;FLOAT", "ND;FRACTAL_NZ;ND", "#,4096", "BF16", "ND",
		   "signed char;signed char;float", "vllm_ascend/quantization/w8a8.py(141): apply"},
	[K_FATTN] = {{"custom::融合注意力"}, 1, "aclnnFusedAttn", "ACL_NN", "aclnnFusedAttn",
		     "融合注意力Ｖ２", "融合注意力", "MIX_AIC", DC_COMPUTE, 8, 24, 48,
		     "#,32,128;2048,128,1024;2048,128,1024", "BF16;BF16;BF16", "ND;ND;ND", "#,32,128",
		     "BF16", "ND", "c10::BFloat16;c10::BFloat16;c10::BFloat16",
		     "vllm_ascend/attention/attention_v1.py(466): forward"},
	[K_GBK1] = {{"自定义算子_1"}, 1, "aclnnCustomOp", "ACL_NN", "aclnnCustomOp", "自定义算子_1",
		    "自定义算子", "AI_CORE", DC_COMPUTE, 3, 24, 0, "#,4096", "BF16", "ND", "#,4096",
		    "BF16", "ND", "c10::BFloat16", "custom_ops/ascend_ops.py(31): forward"},
	[K_GBK2] = {{"自定义算子_2"}, 1, "aclnnCustomOp", "ACL_NN", "aclnnCustomOp", "自定义算子_2",
		    "自定义算子", "AI_CORE", DC_COMPUTE, 3, 24, 0, "#,11008", "BF16", "ND", "#,11008",
		    "BF16", "ND", "c10::BFloat16", "custom_ops/ascend_ops.py(58): forward"},
	[K_HOSTILE] = {{HOSTILE_NAME}, 1, "aclnnCast", "ACL_NN", "aclnnCast", "Cast", "Cast",
		       "AI_VECTOR_CORE", DC_COMPUTE, 1, 40, 0, "#,4096", "BF16", "ND", "#,4096", "FLOAT",
		       "ND", HOSTILE_ARG, "evil/plugin.py(13): forward"},
	[K_ALLREDUCE] = {{"HcclAllreduce"}, 1, "HcclAllreduce", "HOST_HCCL", "HcclAllreduce", NULL,
			 "hcom_allReduce_", "HCCL", DC_COMM, 0, 0, 0, "#,4096", "BF16", "ND", "#,4096",
			 "BF16", "ND", "c10::BFloat16",
			 "vllm/distributed/device_communicators/base_device_communicator.py(93): all_reduce"},
	/* stream-3 side kernel: no host unit of its own */
	[K_S3] = {{NULL}, 0, NULL, NULL, NULL, "TransData", "TransData", "AI_VECTOR_CORE", DC_COMPUTE,
		  0, 8, 0, "#,4096", "BF16", "ND", "#,256,16,16", "BF16", "FRACTAL_NZ", "", ""},
	/* query (T,N,D) in TND layout, key and value caches, block table (B, max blocks) */
	[K_FIA] = {{"npu::npu_fused_infer_attention_score"}, 1, "aclnnFusedInferAttentionScoreV3", "ACL_NN",
		   "aclnnFusedInferAttentionScoreV3", "FusedInferAttentionScore", "FusedInferAttentionScore",
		   "MIX_AIC", DC_COMPUTE, 8, 24, 48, "#,32,128;2048,128,1024;2048,128,1024;@,128",
		   "BF16;BF16;BF16;INT32", "ND;ND;ND;ND", "#,32,128", "BF16", "ND",
		   "c10::BFloat16;c10::BFloat16;c10::BFloat16;int",
		   "vllm_ascend/attention/attention_v1.py(590): forward_impl"},
	/* decode-only graph batches: query (B,N,D), caches, block tables, context lengths */
	[K_PAGED] = {{"npu::_npu_paged_attention"}, 1, "aclnnPagedAttention", "ACL_NN", "aclnnPagedAttention",
		     "PagedAttention", "PagedAttention", "MIX_AIC", DC_COMPUTE, 8, 24, 48,
		     "@,32,128;2048,128,8,128;2048,128,8,128;@,128;@", "BF16;BF16;BF16;INT32;INT32",
		     "ND;ND;ND;ND;ND", "@,32,128", "BF16", "ND", "c10::BFloat16;c10::BFloat16;c10::BFloat16;int;int",
		     "vllm_ascend/attention/attention_v1.py(520): _forward_decode_only"},
	[K_MLAPO] = {{"npu::mla_preprocess"}, 1, "aclnnMlaPreprocess", "ACL_NN", "aclnnMlaPreprocess",
		     "MlaPreprocess", "MLAPO", "MIX_AIC", DC_COMPUTE, 4, 24, 48, "#,7168;7168,2112;1536,24576",
		     "BF16;INT8;INT8", "ND;FRACTAL_NZ;FRACTAL_NZ", "#,128,512;#,128,64", "BF16;BF16", "ND;ND",
		     "c10::BFloat16;signed char;signed char", "vllm_ascend/attention/mla_v1.py(1102): _mla_preprocess"},
	[K_MOE_DISP] = {{"npu::npu_moe_distribute_dispatch_v2"}, 1, "aclnnMoeDistributeDispatchV2", "ACL_NN",
			"aclnnMoeDistributeDispatchV2", "MoeDistributeDispatchV2", "MoeDistributeDispatchV2",
			"MIX_AIV", DC_COMPUTE, 2, 48, 0, "#,7168;#,8", "BF16;INT32", "ND;ND", "#,7168", "BF16", "ND",
			"c10::BFloat16;int", "vllm_ascend/ops/moe/token_dispatcher.py(211): token_dispatch"},
	[K_MOE_COMB] = {{"npu::npu_moe_distribute_combine_v2"}, 1, "aclnnMoeDistributeCombineV2", "ACL_NN",
			"aclnnMoeDistributeCombineV2", "MoeDistributeCombineV2", "MoeDistributeCombineV2",
			"MIX_AIV", DC_COMPUTE, 2, 48, 0, "#,7168;#,8", "BF16;INT32", "ND;ND", "#,7168", "BF16", "ND",
			"c10::BFloat16;int", "vllm_ascend/ops/moe/token_dispatcher.py(268): token_combine"},
	[K_GMM] = {{"npu::npu_grouped_matmul"}, 1, "aclnnGroupedMatmulV4", "ACL_NN", "aclnnGroupedMatmulV4",
		   "GroupedMatmul", "GroupedMatmul", "AI_CORE", DC_COMPUTE, 10, 24, 0, "#,7168;16,7168,4096",
		   "BF16;BF16", "ND;ND", "#,4096", "BF16", "ND", "c10::BFloat16;c10::BFloat16",
		   "vllm_ascend/ops/moe/moe_mlp.py(92): quant_apply_mlp"},
	[K_FA] = {{"npu::npu_fusion_attention"}, 1, "aclnnFlashAttentionScore", "ACL_NN", "aclnnFlashAttentionScore",
		  "FlashAttentionScore", "FlashAttentionScore", "MIX_AIC", DC_COMPUTE, 8, 24, 48,
		  "4,#,32,128;4,#,8,128;4,#,8,128", "BF16;BF16;BF16", "ND;ND;ND", "4,#,32,128", "BF16", "ND",
		  "c10::BFloat16;c10::BFloat16;c10::BFloat16", "megatron/core/transformer/attention.py(312): forward"},
	[K_FA_GRAD] = {{"autograd::engine::evaluate_function: NpuFusionAttentionBackward",
			"NpuFusionAttentionBackward", "npu::npu_fusion_attention_grad"}, 3,
		       "aclnnFlashAttentionScoreGrad", "ACL_NN", "aclnnFlashAttentionScoreGrad",
		       "FlashAttentionScoreGrad", "FlashAttentionScoreGrad", "MIX_AIC", DC_COMPUTE, 16, 24, 48,
		       "4,#,32,128;4,#,8,128;4,#,8,128;4,#,32,128", "BF16;BF16;BF16;BF16", "ND;ND;ND;ND",
		       "4,#,32,128;4,#,8,128;4,#,8,128", "BF16;BF16;BF16", "ND;ND;ND",
		       "c10::BFloat16;c10::BFloat16;c10::BFloat16;c10::BFloat16",
		       "torch/autograd/graph.py(825): _engine_run_backward"},
	[K_RMSNORM_GRAD] = {{"autograd::engine::evaluate_function: NpuRmsNormBackward", "NpuRmsNormBackward",
			     "npu::npu_rms_norm_backward"}, 3, "aclnnRmsNormGrad", "ACL_NN", "aclnnRmsNormGrad",
			    "RmsNormGrad", "RmsNormGrad", "AI_VECTOR_CORE", DC_COMPUTE, 2, 40, 0,
			    "#,4096;#,4096;#,1;4096", "BF16;BF16;FLOAT;BF16", "ND;ND;ND;ND", "#,4096;4096", "BF16;FLOAT",
			    "ND;ND", "c10::BFloat16;c10::BFloat16;float;c10::BFloat16",
			    "torch/autograd/graph.py(825): _engine_run_backward"},
	[K_SWIGLU_GRAD] = {{"autograd::engine::evaluate_function: NpuSwigluBackward", "NpuSwigluBackward",
			    "npu::npu_swiglu_backward"}, 3, "aclnnSwiGluGrad", "ACL_NN", "aclnnSwiGluGrad",
			   "SwiGluGrad", "SwiGluGrad", "AI_VECTOR_CORE", DC_COMPUTE, 2, 40, 0, "#,11008;#,22016",
			   "BF16;BF16", "ND;ND", "#,22016", "BF16", "ND", "c10::BFloat16;c10::BFloat16",
			   "torch/autograd/graph.py(825): _engine_run_backward"},
	[K_MM_GRAD] = {{"autograd::engine::evaluate_function: MmBackward0", "MmBackward0", "aten::mm"}, 3, "aclnnMm",
		       "ACL_NN", "aclnnMm", "MatMulV2", "MatMulV2", "AI_CORE", DC_COMPUTE, 24, 24, 0,
		       "#,4096;4096,4096", "BF16;BF16", "ND;ND", "#,4096", "BF16", "ND", "c10::BFloat16;c10::BFloat16",
		       "torch/autograd/graph.py(825): _engine_run_backward"},
	[K_EMBED_GRAD] = {{"autograd::engine::evaluate_function: EmbeddingBackward0", "EmbeddingBackward0",
			   "aten::embedding_dense_backward"}, 3, "aclnnEmbeddingDenseBackward", "ACL_NN",
			  "aclnnEmbeddingDenseBackward", "EmbeddingDenseGradV2", "EmbeddingDenseGradV2",
			  "AI_VECTOR_CORE", DC_COMPUTE, 2, 40, 0, "#,4096;#", "BF16;INT64", "ND;ND", "151936,4096",
			  "BF16", "ND", "c10::BFloat16;long int", "torch/autograd/graph.py(825): _engine_run_backward"},
	[K_ADAMW] = {{"Optimizer.step#AdamW.step", "npu::npu_apply_adam_w"}, 2, "aclnnApplyAdamWV2", "ACL_NN",
		     "aclnnApplyAdamWV2", "ApplyAdamWV2", "ApplyAdamWV2", "AI_VECTOR_CORE", DC_COMPUTE, 3, 40, 0,
		     "4096,4096;4096,4096;4096,4096;4096,4096", "FLOAT;FLOAT;FLOAT;FLOAT", "ND;ND;ND;ND",
		     "4096,4096", "FLOAT", "ND", "float;float;float;float", "torch/optim/adamw.py(220): step"},
	/* MoE above the MC2 capacity (512 tokens per rank): all-to-all instead of dispatch/combine */
	[K_ALLTOALL] = {{"HcclAlltoAllV"}, 1, "HcclAlltoAllV", "HOST_HCCL", "HcclAlltoAllV", NULL, "hcom_alltoallv_",
			"HCCL", DC_COMM, 0, 0, 0, "#,7168", "BF16", "ND", "#,7168", "BF16", "ND", "c10::BFloat16",
			"vllm_ascend/ops/moe/token_dispatcher.py(402): token_dispatch"},
	/* vLLM-Ascend 0.7-0.9 prefill without a cache: query, key, value (T,N,D), sequence lengths */
	[K_FLASH] = {{"npu::_npu_flash_attention"}, 1, "aclnnFlashAttentionScore", "ACL_NN", "aclnnFlashAttentionScore",
		     "FlashAttentionScore", "FlashAttentionScore", "MIX_AIC", DC_COMPUTE, 8, 24, 48,
		     "#,32,128;#,8,128;#,8,128;@", "BF16;BF16;BF16;INT32", "ND;ND;ND;ND", "#,32,128", "BF16", "ND",
		     "c10::BFloat16;c10::BFloat16;c10::BFloat16;int",
		     "vllm_ascend/attention/attention_v1.py(372): _forward_prefill_no_cache"},
};
/* clang-format on */

/* --kernel-scale and --drop-op name a compute kernel that has a host unit of its own. */
int kernel_kind(const char *opt, const char *name)
{
	for (int k = 0; k < K_COUNT; k++)
		if (kinds[k].dc == DC_COMPUTE && kinds[k].nest > 0 && !strcmp(kinds[k].kernel, name))
			return k;
	usage_error("%s: no compute kernel named '%s' (e.g. RmsNorm, MatMulV2, Silu)", opt, name);
}

void parse_shape(const char *v, struct shape_opts *sh)
{
	memset(sh, 0, sizeof *sh);
	char buf[256];
	if (strlen(v) >= sizeof buf)
		usage_error("--shape: '%s' is too long", v);
	strcpy(buf, v);
	char *save = NULL;
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		bool first = w == buf;
		if (first && !strcmp(w, "marked"))
			sh->kind = SHAPE_MARKED;
		else if (first && !strcmp(w, "vllm"))
			sh->kind = SHAPE_VLLM;
		else if (first && !strcmp(w, "train"))
			sh->kind = SHAPE_TRAIN;
		else if (first)
			usage_error("--shape: expected marked, vllm or train first, not '%s'", w);
		else if (sh->kind != SHAPE_VLLM)
			usage_error("--shape: modifiers ('%s') apply to vllm only", w);
		else if (!strcmp(w, "mla"))
			sh->mla = true;
		else if (!strcmp(w, "moe"))
			sh->moe = true;
		else if (!strcmp(w, "graph"))
			sh->graph = true;
		else if (!strcmp(w, "annotate"))
			sh->annotate = true;
		else if (!strcmp(w, "legacy"))
			sh->legacy = true;
		else if (!strcmp(w, "short"))
			sh->short_prefill = true;
		else if (!strncmp(w, "mixed=", 6))
			sh->mixed = (int)arg_int("--shape mixed=", w + 6, 0, 1000000);
		else
			usage_error("--shape: unknown modifier '%s' (mla, moe, graph, annotate, legacy, "
			            "short, mixed=N)",
			            w);
	}
}

/* What the shape implies for the other options. */
void shape_apply(struct opts *o)
{
	if (o->shape.kind == SHAPE_VLLM) {
		/* no schedule, msprof_tx=False: no markers; one step_trace row without a step id.
		 * A schedule given (--step-marks profilerstep) marks the steps as torch_npu does */
		if (!o->marks_set)
			o->marks = MARKS_NONE;
		if (o->marks == MARKS_ENGINE)
			usage_error(
			        "--shape vllm writes no python_function: --step-marks profilerstep or none");
		if (!o->step_trace_set)
			o->step_trace = o->marks == MARKS_PROFILERSTEP ? ST_ROWS : ST_ONE;
		o->host_bare = true;
		if (o->hostile || o->demo)
			usage_error("--shape vllm does not combine with --hostile or --demo");
		if (o->shape.legacy && (o->shape.mixed || o->shape.graph || o->shape.mla))
			usage_error("--shape vllm,legacy (0.7-0.9 eager) takes no mixed, graph or mla");
	} else if (o->shape.kind == SHAPE_TRAIN) {
		o->prefill = 0; /* training steps are neither prefill nor decode */
		if (o->marks == MARKS_ENGINE)
			o->marks = MARKS_PROFILERSTEP; /* training uses a schedule */
		if (o->demo)
			usage_error("--shape train does not combine with --demo");
	}
	if (o->default_export) {
		if (o->demo)
			usage_error("--default-export does not combine with --demo");
		o->marks = MARKS_NONE;
		o->step_trace = ST_ONE;
		o->call_stack = false;
		o->host_bare = true;
	}
}
