/* One cmd_<name>() per subcommand, each in its own cmd_<name>.c. */
#ifndef AC_COMMANDS_H
#define AC_COMMANDS_H

int cmd_run(int argc, char **argv);

#endif
