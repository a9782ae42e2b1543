/* One cmd_<name>() per subcommand, each in its own cmd_<name>.c. */
#ifndef AC_COMMANDS_H
#define AC_COMMANDS_H

int cmd_begin(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_finalize(int argc, char **argv);
int cmd_validate_set(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_status(int argc, char **argv);

#endif
