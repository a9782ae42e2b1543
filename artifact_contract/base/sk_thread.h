/* Worker threads that never run signal handlers.
 *
 * A program's interruption handler (sk_fs_staging_abort) must run on a thread
 * that cannot be in the middle of changing the staging list, and that list
 * changes only with signals blocked in the thread changing it.  Threads
 * started here block every signal, so handlers run on the thread that
 * started them. */
#ifndef SK_THREAD_H
#define SK_THREAD_H

#include <pthread.h>

/* pthread_create with default attributes and every signal blocked in the new
 * thread; 0 or the error number of pthread_create. */
int sk_thread_create(pthread_t *t, void *(*fn)(void *), void *arg);

#endif
