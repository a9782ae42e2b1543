/* How many sk_prof records one core can hold for a given ASCEND_PROF_SK_ON.
 *
 * The runtime gives every recording core a non-wrapping buffer for the whole
 * process lifetime; once it is full that core's later records are lost.  A
 * core whose record count in sk_prof_device_<n>.json reaches this capacity
 * therefore lost data even if the buffer-full warning is missing from
 * super_kernel.log.
 */
#ifndef RD_PROF_CAPACITY_H
#define RD_PROF_CAPACITY_H

#include <stdint.h>

/* Largest accepted ASCEND_PROF_SK_ON in KB; larger values disable profiling
 * (the runtime's ParseEnvAndSetSize; docs/readers.md §9). */
#define RD_PROF_SK_ON_MAX_KB 5120u
/* Values above this are accepted with a warning (same function). */
#define RD_PROF_SK_ON_WARN_KB 1024u
/* The per-core size is rounded up to a multiple of 64 KB (same function). */
#define RD_PROF_CORE_ALIGN_KB 64u
/* Per-core buffer header: SkKernelEventCoreBuf {uint32 offset; uint32 reserved}
 * in the runtime; records start after it (docs/readers.md §9). */
#define RD_PROF_CORE_HEADER_BYTES 8u
/* SkKernelEventRecord: uint64 model, uint32 skId, uint32 nodeId, uint8
 * blockIdx, uint8 blockNum, 6 bytes padding, uint64 start, uint64 end = 40
 * (sk_common.h); a record is read only while it fits entirely in the buffer
 * (DumpDeviceData: "lastOff + sizeof(SkKernelEventRecord) <= coreSize_"). */
#define RD_PROF_RECORD_BYTES 40u

/* The per-core buffer size in KB the runtime allocates for an
 * ASCEND_PROF_SK_ON value of kb: kb rounded up to a multiple of 64.
 * Returns 0 when kb is 0 or above RD_PROF_SK_ON_MAX_KB (profiling off). */
uint32_t rd_prof_core_size_kb(uint64_t kb);

/* Records per core: floor((core_size_kb * 1024 - 8) / 40); 64 KB -> 1638,
 * 1024 KB -> 26214.  Returns 0 when kb is invalid as above. */
uint32_t rd_prof_capacity_records(uint64_t kb);

#endif
