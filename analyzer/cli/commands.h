/* One cmd_<name>() per subcommand, each in its own cmd_<name>.c. */
#ifndef SKDCCI_COMMANDS_H
#define SKDCCI_COMMANDS_H

int cmd_trial(int argc, char **argv);
int cmd_stability(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_matrix(int argc, char **argv);
#endif
