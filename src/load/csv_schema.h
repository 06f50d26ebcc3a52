/* SPDX-License-Identifier: MIT */
/* The one alias table for CSV headers. Header spellings drift between torch_npu and CANN
 * versions (Block Dim / Block Num, Accelerator Core / Task Type, (us) / (µs), Device_id /
 * Device ID ...); every reader asks for a canonical column and never for a spelling.
 * Files are recognised by the canonical columns they hold, not by their names, since
 * wrappers rename Class B files to Class A names and back. */
#ifndef ASCPROF_CSV_SCHEMA_H
#define ASCPROF_CSV_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

/* How a column is kept: interned text, exact µs time as ns, a number, or a ratio. */
enum csv_type { CSVT_STR, CSVT_TIME, CSVT_NUM, CSVT_RATIO };

/* X(id, type, "spelling|spelling|...") */
#define CSV_COLUMNS(X)                                                                   \
	X(DEVICE_ID, CSVT_STR, "Device_id|Device ID|Device Id|deviceId")                     \
	X(STEP_ID, CSVT_STR, "Step Id|Step ID")                                              \
	X(MODEL_ID, CSVT_STR, "Model ID|Model Id")                                           \
	X(TASK_ID, CSVT_STR, "Task ID|Task Id")                                              \
	X(STREAM_ID, CSVT_STR, "Stream ID|Stream Id")                                        \
	X(NAME, CSVT_STR, "Name|Op Name|OP Name|kernel_name")                                            \
	X(TYPE, CSVT_STR, "Type|OP Type|Op Type")                                            \
	X(OP_STATE, CSVT_STR, "OP State")                                                    \
	X(ACCEL_CORE, CSVT_STR, "Accelerator Core|Task Type|Accelerator|kernel_type")                   \
	X(START, CSVT_TIME, "Start Time(us)|Task Start Time(us)|task_start(us)")                            \
	X(DURATION, CSVT_TIME, "Duration(us)|Task Duration(us)|task_time(us)")                             \
	X(WAIT, CSVT_TIME, "Wait Time(us)|Task Wait Time(us)")                               \
	X(BLOCK_DIM, CSVT_NUM, "Block Dim|Block Num")                                        \
	X(MIX_BLOCK_DIM, CSVT_NUM, "Mix Block Dim|Mix Block Num")                            \
	X(HF32, CSVT_STR, "HF32 Eligible")                                                   \
	X(INPUT_SHAPES, CSVT_STR, "Input Shapes")                                            \
	X(INPUT_TYPES, CSVT_STR, "Input Data Types")                                         \
	X(INPUT_FORMATS, CSVT_STR, "Input Formats")                                          \
	X(OUTPUT_SHAPES, CSVT_STR, "Output Shapes")                                          \
	X(OUTPUT_TYPES, CSVT_STR, "Output Data Types")                                       \
	X(OUTPUT_FORMATS, CSVT_STR, "Output Formats")                                        \
	X(AICORE_TIME, CSVT_TIME, "aicore_time(us)")                                         \
	X(AIV_TIME, CSVT_TIME, "aiv_time(us)")                                               \
	X(AIC_MAC_RATIO, CSVT_RATIO, "aic_mac_ratio")                                        \
	X(AIC_VEC_RATIO, CSVT_RATIO, "aic_vec_ratio")                                        \
	X(AIC_SCALAR_RATIO, CSVT_RATIO, "aic_scalar_ratio")                                  \
	X(AIC_MTE1_RATIO, CSVT_RATIO, "aic_mte1_ratio")                                      \
	X(AIC_MTE2_RATIO, CSVT_RATIO, "aic_mte2_ratio")                                      \
	X(AIC_MTE3_RATIO, CSVT_RATIO, "aic_mte3_ratio")                                      \
	X(AIC_FIXPIPE_RATIO, CSVT_RATIO, "aic_fixpipe_ratio")                                \
	X(AIC_ICACHE_MISS, CSVT_RATIO, "aic_icache_miss_rate")                               \
	X(AIV_MAC_RATIO, CSVT_RATIO, "aiv_mac_ratio")                                        \
	X(AIV_VEC_RATIO, CSVT_RATIO, "aiv_vec_ratio")                                        \
	X(AIV_SCALAR_RATIO, CSVT_RATIO, "aiv_scalar_ratio")                                  \
	X(AIV_MTE1_RATIO, CSVT_RATIO, "aiv_mte1_ratio")                                      \
	X(AIV_MTE2_RATIO, CSVT_RATIO, "aiv_mte2_ratio")                                      \
	X(AIV_MTE3_RATIO, CSVT_RATIO, "aiv_mte3_ratio")                                      \
	X(AIV_ICACHE_MISS, CSVT_RATIO, "aiv_icache_miss_rate")                               \
	X(MEMORY_BOUND, CSVT_NUM, "memory_bound")                                            \
	X(CUBE_UTIL, CSVT_NUM, "cube_utilization(%)")                                        \
	X(CALL_STACK, CSVT_STR, "Call Stack")                                                \
	X(HOST_SELF, CSVT_TIME, "Host Self Duration(us)")                                    \
	X(HOST_TOTAL, CSVT_TIME, "Host Total Duration(us)")                                  \
	X(DEV_SELF, CSVT_TIME, "Device Self Duration(us)")                                   \
	X(DEV_TOTAL, CSVT_TIME, "Device Total Duration(us)")                                 \
	X(DEV_SELF_AIC, CSVT_TIME, "Device Self Duration With AICore(us)")                   \
	X(DEV_TOTAL_AIC, CSVT_TIME, "Device Total Duration With AICore(us)")                 \
	X(MODEL_NAME, CSVT_STR, "Model Name")                                                \
	X(CORE_TYPE, CSVT_STR, "Core Type")                                                  \
	X(COUNT, CSVT_NUM, "Count")                                                          \
	X(TOTAL, CSVT_TIME, "Total Time(us)|Time(us)")                                       \
	X(MIN, CSVT_TIME, "Min Time(us)|Min(us)")                                            \
	X(AVG, CSVT_TIME, "Avg Time(us)|Avg(us)")                                            \
	X(MAX, CSVT_TIME, "Max Time(us)|Max(us)")                                            \
	X(RATIO_PCT, CSVT_NUM, "Ratio(%)")                                                   \
	X(LEVEL, CSVT_STR, "Level")                                                          \
	X(API_NAME, CSVT_STR, "API Name")                                                    \
	X(VARIANCE, CSVT_NUM, "Variance")                                                    \
	X(STEP, CSVT_STR, "Step|Iteration ID")                                               \
	X(COMPUTING, CSVT_TIME, "Computing")                                                 \
	X(COMM_NOT_OVERLAPPED, CSVT_TIME, "Communication(Not Overlapped)")                   \
	X(OVERLAPPED, CSVT_TIME, "Overlapped")                                               \
	X(COMMUNICATION, CSVT_TIME, "Communication")                                         \
	X(FREE, CSVT_TIME, "Free")                                                           \
	X(STAGE, CSVT_STR, "Stage")                                                          \
	X(BUBBLE, CSVT_TIME, "Bubble")                                                       \
	X(COMM_NOT_OVERLAPPED_EXCL_RECV, CSVT_TIME,                                          \
	  "Communication(Not Overlapped and Exclude Receive)")                               \
	X(PREPARING, CSVT_TIME, "Preparing")                                                 \
	X(COMPONENT, CSVT_STR, "Component")                                                  \
	X(TIMESTAMP, CSVT_TIME, "Timestamp(us)")                                             \
	X(TOTAL_ALLOCATED_MB, CSVT_NUM, "Total Allocated(MB)")                               \
	X(TOTAL_RESERVED_MB, CSVT_NUM, "Total Reserved(MB)")                                 \
	X(TOTAL_ACTIVE_MB, CSVT_NUM, "Total Active(MB)")                                     \
	X(TOTAL_ALLOCATED_KB, CSVT_NUM, "Total Allocated(KB)")                               \
	X(TOTAL_RESERVED_KB, CSVT_NUM, "Total Reserved(KB)")                                 \
	X(TOTAL_ACTIVE_KB, CSVT_NUM, "Total Active(KB)")                                     \
	X(STREAM_PTR, CSVT_STR, "Stream Ptr")                                                \
	X(DEVICE_TYPE, CSVT_STR, "Device Type|Device")                                       \
	X(SIZE_KB, CSVT_NUM, "Size(KB)")                                                     \
	X(ALLOCATION_TIME, CSVT_TIME, "Allocation Time(us)")                                 \
	X(RELEASE_TIME, CSVT_TIME, "Release Time(us)")                                       \
	X(HIT_RATE, CSVT_NUM, "Hit Rate")                                                    \
	X(VICTIM_RATE, CSVT_NUM, "Victim Rate")                                              \
	X(STOP, CSVT_TIME, "task_stop(us)|End Time(us)")                                     \
	X(CORE_ID, CSVT_STR, "Core ID")                                                      \
	X(ITERATION_TIME, CSVT_TIME, "Iteration Time(us)")                                   \
	X(FP_BP_TIME, CSVT_TIME, "FP to BP Time(us)")                                        \
	X(ITERATION_REFRESH, CSVT_TIME, "Iteration Refresh(us)")                             \
	X(DATA_AUG_BOUND, CSVT_TIME, "Data Aug Bound(us)")

enum csv_col {
#define CSV_ENUM(id, type, names) COL_##id,
	CSV_COLUMNS(CSV_ENUM)
#undef CSV_ENUM
	CSV_COL_COUNT
};

/* What a table is, decided from its columns. */
#define CSV_KINDS(X)                                                                     \
	X(UNKNOWN, "unknown")                                                                \
	X(KERNEL, "kernel_details")                                                          \
	X(OPERATOR_DETAILS, "operator_details")                                              \
	X(OP_STATISTIC, "op_statistic")                                                      \
	X(API_STATISTIC, "api_statistic")                                                    \
	X(STEP_TRACE, "step_trace_time")                                                     \
	X(MEMORY_RECORD, "memory_record")                                                    \
	X(NPU_MODULE_MEM, "npu_module_mem")                                                  \
	X(OPERATOR_MEMORY, "operator_memory")                                                \
	X(L2_CACHE, "l2_cache")                                                              \
	X(TASK_TIME, "task_time")                                                            \
	X(AI_CORE_UTIL, "ai_core_utilization")                                               \
	X(ITERATION_TRACE, "step_trace (iterations)")                                        \
	X(COMM_STATISTIC, "communication_statistic")

enum csv_kind {
#define CSV_KIND_ENUM(id, name) CSV_##id,
	CSV_KINDS(CSV_KIND_ENUM)
#undef CSV_KIND_ENUM
	CSV_KIND_COUNT
};

/* The canonical column for a header cell, or -1. Matching ignores case, spaces and
 * underscores, and reads µ (U+00B5) and μ (U+03BC) as u. */
int csv_schema_lookup(const char *header, size_t len);
enum csv_type csv_schema_type(enum csv_col col);
/* Whether something reads the column by name (the analysis or a view). Only these are kept
 * typed per row; every other cell is read from the file when a row is drilled into, which
 * keeps a large kernel table's cost to the columns that matter (tests/csv_columns_read.sh
 * checks this list against the code). */
bool csv_schema_is_read(enum csv_col col);
/* The first (preferred) spelling, for messages and table headers (static). */
const char *csv_schema_label(enum csv_col col);
/* The kind of a table holding these columns (present[c] true when column c exists). */
enum csv_kind csv_schema_kind(const bool present[CSV_COL_COUNT]);
/* The kind a file name says, for the few tables whose columns do not tell them apart
 * (communication_statistic has op_statistic's columns); CSV_UNKNOWN otherwise. */
enum csv_kind csv_schema_kind_by_name(const char *base_name);
const char *csv_kind_name(enum csv_kind kind); /* static */
struct sbuf;
/* Whether a file's name says a known table (kernel_details*, op_statistic* ...) that its
 * header does not match (kind is what the header says); then *why gets the message: the
 * expected table, its missing columns and what the file is read as. */
bool csv_schema_name_mismatch(const char *base_name, enum csv_kind kind, const bool present[CSV_COL_COUNT],
			      struct sbuf *why);

#endif
