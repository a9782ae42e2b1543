/* One cmd_<name>() per subcommand, each in its own cmd_<name>.c. */
#ifndef SKDCCI_COMMANDS_H
#define SKDCCI_COMMANDS_H

int cmd_analyze(int argc, char **argv);
extern const char cmd_analyze_usage[];

#endif
