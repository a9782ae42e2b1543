#include "analyzer/readers/rd_prof_capacity.h"
#include "tests/unit/t.h"

static void capacity_matches_runtime_layout(void)
{
    T_EQ_INT(rd_prof_capacity_records(64), 1638);
    T_EQ_INT(rd_prof_capacity_records(1024), 26214);
    /* (65536 - 8) / 40 = 1638.2 and (1048576 - 8) / 40 = 26214.2 */
    T_EQ_INT(rd_prof_capacity_records(1), 1638);   /* rounded up to 64 KB */
    T_EQ_INT(rd_prof_capacity_records(63), 1638);
    T_EQ_INT(rd_prof_capacity_records(65), 3276);  /* 128 KB: (131072 - 8) / 40 */
    T_EQ_INT(rd_prof_capacity_records(5120), 131071); /* (5242880 - 8) / 40 = 131071.8 */
    T_EQ_INT(rd_prof_capacity_records(5119), 131071);
}

static void capacity_rejects_values_the_runtime_rejects(void)
{
    T_EQ_INT(rd_prof_capacity_records(0), 0);
    T_EQ_INT(rd_prof_capacity_records(5121), 0);
    T_EQ_INT(rd_prof_capacity_records(UINT64_MAX), 0);
    T_EQ_INT(rd_prof_core_size_kb(0), 0);
    T_EQ_INT(rd_prof_core_size_kb(5121), 0);
}

static void core_size_rounds_up_to_64(void)
{
    T_EQ_INT(rd_prof_core_size_kb(1), 64);
    T_EQ_INT(rd_prof_core_size_kb(64), 64);
    T_EQ_INT(rd_prof_core_size_kb(65), 128);
    T_EQ_INT(rd_prof_core_size_kb(1000), 1024);
    T_EQ_INT(rd_prof_core_size_kb(5120), 5120);
}

static const t_case cases[] = {
    T(capacity_matches_runtime_layout),
    T(capacity_rejects_values_the_runtime_rejects),
    T(core_size_rounds_up_to_64),
    {NULL, NULL},
};
T_MAIN(cases)
