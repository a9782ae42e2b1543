/* What `artifact_contract run` records about the members of its process
 * group (docs/producer-record.md "What is recorded about the group's
 * members"): at every group scan, for each process of the group, its argv
 * and the values of the listed instrumentation variables (ac_instr.h) of its
 * environment, or why they could not be read.  Only the listed names are
 * ever copied out of a member's environment (it may hold secrets).  Sizes
 * are bounded (AC_MEMBER_* in ac_producer_record.h) with a visible mark.
 *
 * A failed allocation never stops the run: the member is marked
 * images_truncated (its evidence is incomplete, which the clean check
 * treats as unclean). */
#ifndef AC_MEMBERS_H
#define AC_MEMBERS_H

#include <stddef.h>

#include "artifact_contract/ac_proc.h"
#include "artifact_contract/ac_producer_record.h"
#include "artifact_contract/base/sk_buf.h"
#include "artifact_contract/base/sk_diag.h"

typedef struct ac_observer {
    ac_member *members; /* ascending by (pid, start time); AC_PRODUCER_MAX_MEMBERS slots */
    size_t n;
    int truncated;      /* a process was seen when every slot was taken */
    size_t budget_used; /* bytes of argv and values recorded so far */
    sk_buf cmdline;     /* scratch */
} ac_observer;

sk_err ac_observer_init(ac_observer *o, sk_diag *d);
/* Frees the members' images and the slots. */
void ac_observer_free(ac_observer *o);

/* Adds the process to the members without looking at it (the parked leader,
 * which has not executed the command yet). */
void ac_observer_note(ac_observer *o, const ac_proc_stat *st);
/* Adds the process and records what it shows now, when that differs from
 * its last image.  An ac_proc_visit_fn: ctx is the observer; never fails. */
sk_err ac_observer_look(const ac_proc_stat *st, void *ctx, sk_diag *d);
/* Before the record is written: a member never looked at successfully gets
 * an "exited" image (or images_truncated when even that cannot be stored). */
void ac_observer_finish(ac_observer *o);

/* Appends s[0..len) to out as UTF-8 text: valid UTF-8 is copied, every
 * other byte becomes the four characters \xNN.  SK_E_NOMEM on failure. */
sk_err ac_text_append_sanitized(sk_buf *out, const char *s, size_t len);

#endif
