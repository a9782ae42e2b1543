/* See sk_thread.h. */
#include "artifact_contract/base/sk_thread.h"

#include <signal.h>

int sk_thread_create(pthread_t *t, void *(*fn)(void *), void *arg)
{
    sigset_t all, old;
    sigfillset(&all);
    /* the new thread inherits the mask in force when it is created */
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(t, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}
