/* sigdfl CMD [ARG...]: runs CMD with SIGINT, SIGTERM and SIGHUP reset to
 * their default action and unblocked.  Shells start background jobs with
 * SIGINT ignored, and a non-interactive shell cannot undo that, so tests
 * that interrupt `artifact_contract run` start it through this helper. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction dfl;
    sigset_t set;
    if (argc < 2) {
        fprintf(stderr, "usage: sigdfl CMD [ARG...]\n");
        return 2;
    }
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        sigaction(sigs[i], &dfl, NULL);
        sigaddset(&set, sigs[i]);
    }
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    execvp(argv[1], argv + 1);
    perror("sigdfl: exec");
    return 127;
}
