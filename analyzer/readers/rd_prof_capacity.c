#include "analyzer/readers/rd_prof_capacity.h"

uint32_t rd_prof_core_size_kb(uint64_t kb)
{
    if (kb == 0 || kb > RD_PROF_SK_ON_MAX_KB)
        return 0;
    return (uint32_t)((kb + RD_PROF_CORE_ALIGN_KB - 1) / RD_PROF_CORE_ALIGN_KB *
                      RD_PROF_CORE_ALIGN_KB);
}

uint32_t rd_prof_capacity_records(uint64_t kb)
{
    uint64_t core_kb = rd_prof_core_size_kb(kb);
    if (core_kb == 0)
        return 0;
    return (uint32_t)((core_kb * 1024u - RD_PROF_CORE_HEADER_BYTES) / RD_PROF_RECORD_BYTES);
}
