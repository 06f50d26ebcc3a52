/* SPDX-License-Identifier: MIT */
/* Device memory from the exporter's tables: memory_record (per component over time),
 * npu_module_mem (per driver module over time) and operator_memory (per allocation).
 *
 * Every size is in MB here: Class A tables write MB, Class B (msprof) tables write KB
 * (operator_memory's Size is KB in both), and the unit is decided per column by its header.
 * Values are kept as written, negative ones included (operator_memory records frees as
 * negative sizes in some versions). */
#ifndef ASCPROF_MEMORY_H
#define ASCPROF_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct csv_table;

#define MEM_CURVE_POINTS 256

/* One component (memory_record: APP, PTA, GE, PTA+GE; npu_module_mem: driver modules). */
struct mem_component {
	const char *name; /* borrowed from the table's strings */
	size_t samples;
	double peak_allocated_mb, peak_reserved_mb, peak_active_mb; /* NAN when the table lacks it */
	double last_reserved_mb;
	int64_t peak_ts;  /* of the allocated peak, else the reserved one (ns); 0 when unknown */
	size_t peak_row;  /* the table row of that peak, for drill-down */
};

/* One allocation from operator_memory. */
struct mem_alloc {
	const char *name; /* borrowed from operator_memory's strings */
	double size_mb;
	int64_t alloc_ts;     /* ns; INT64_MIN when missing */
	int64_t duration_ns;  /* -1 when never released in the capture */
	size_t row;
};

struct mem_analysis {
	const struct csv_table *record, *modules, *ops; /* borrowed; NULL when absent */
	bool record_in_kb, modules_in_kb;               /* Class B units, converted */

	struct mem_component *comps; /* owned; memory_record, by peak desc */
	size_t n_comps;
	struct mem_component *mods;  /* owned; npu_module_mem, by peak reserved desc */
	size_t n_mods;

	/* The curve of the component that best shows the steps' memory (PTA+GE, PTA or GE
	 * allocated, else APP reserved): the maximum in each of n_curve equal time buckets. */
	const char *curve_component; /* borrowed from the component's name, or NULL */
	const char *curve_field; /* static: "reserved" or "allocated" */
	double curve[MEM_CURVE_POINTS];
	int n_curve;
	int64_t curve_t0, curve_t1;

	struct mem_alloc *top; /* owned; the largest allocations, by size desc */
	size_t n_top;
	size_t n_allocs, negative_sizes, never_released;
	double total_alloc_mb; /* sum of positive sizes */
};

/* Fills m from the tables (any may be NULL; borrowed, kept in m: they must outlive it). */
void memory_analyse(const struct csv_table *record, const struct csv_table *modules,
		    const struct csv_table *ops, struct mem_analysis *m);
void memory_free(struct mem_analysis *m);
/* The device's peak reserved and allocated MB (NAN when unknown), for the metric table. */
double memory_peak_reserved_mb(const struct mem_analysis *m);
double memory_peak_allocated_mb(const struct mem_analysis *m);

#endif
