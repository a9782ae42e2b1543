#!/usr/bin/env bash
# The README's usage blocks against the programs' own --help: the code block
# under "### artifact_contract" and the one under "### skdcci" must hold
# exactly the synopsis of every command (tools/usage_block.sh), the same
# forms with the same options and argument forms (line breaks and runs of
# spaces do not matter), and every option a command's --help lists under
# "Options:" must appear in its synopsis.  A failure names the line to add,
# fix or remove.
source "$SK_REPO/tests/lib.sh"
SK_SCRIPT=readme_usage

check() { # PROGRAM
    python3 - "$SK_REPO/README.md" "$SK_BUILD/bin/$1" "$SK_REPO/tools" <<'PY'
import re
import subprocess
import sys

readme, prog, tools = sys.argv[1:]
name = prog.rsplit("/", 1)[1]
problems = []


def run(*argv):
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


def forms(lines):
    """Synopsis lines -> forms: a line starting with the program name starts
    a form, an indented line continues it; whitespace collapsed."""
    out = []
    for line in lines:
        if line.startswith(name + " "):
            out.append(line)
        elif line.strip() and out and line[0] == " ":
            out[-1] += " " + line
        elif line.strip():
            out.append(line)  # neither: reported as a form of no command
    return [" ".join(f.split()) for f in out]


def command_of(form):
    words = form.split()
    return words[1] if len(words) > 1 and words[0] == name else None


# what --help says: each command's forms, in the order of the command list
block = run(f"{tools}/usage_block.sh", prog)
help_forms = forms(block.splitlines())
commands = run(f"{tools}/help_commands.sh", prog).split()

# every option of a command's "Options:" section in its synopsis (a section
# "Scan options:" is covered by a "[SCAN OPTIONS]" placeholder)
for cmd in commands:
    text = run(prog, cmd, "--help")
    synopsis, _, rest = text.partition("\n\n")
    section = None
    for line in rest.splitlines():
        if re.match(r"^\S.*:$", line):
            section = line[:-1]
            continue
        m = re.match(r"^ {2,6}(?:(-\w), )?(--[a-z][a-z0-9-]*)", line)
        if not m or section is None or not section.lower().endswith("options"):
            continue
        if section != "Options" and f"[{section.upper()}]" in synopsis:
            continue
        short, long_ = m.groups()
        if long_ not in synopsis and not (short and re.search(rf"(^|[\s\[]){short}\b", synopsis)):
            problems.append(f"`{name} {cmd} --help` lists {long_} under {section}: but its usage "
                            f"line does not show it: add it to the Usage text of `{cmd}`")

# what the README says: the first code block after "### <name>"
lines = open(readme, encoding="utf-8").read().splitlines()
try:
    start = lines.index(f"### {name}")
    open_ = next(i for i in range(start, len(lines)) if lines[i].startswith("```"))
    close = next(i for i in range(open_ + 1, len(lines)) if lines[i].startswith("```"))
except (ValueError, StopIteration):
    print(f"README.md: no usage code block under '### {name}'")
    sys.exit(1)
readme_forms = forms(lines[open_ + 1:close])

for cmd in dict.fromkeys([command_of(f) for f in readme_forms] + commands):
    extra = [f for f in readme_forms if command_of(f) == cmd and f not in help_forms]
    missing = [h for h in help_forms if command_of(h) == cmd and h not in readme_forms]
    if cmd not in commands:
        problems += [f"README.md: remove the line `{f}`: `{name}` has no command {cmd!r}"
                     for f in extra]
        continue
    for f, h in zip(extra, missing):
        problems.append(f"README.md: fix the line `{f}` to `{h}` (as `{name} {cmd} --help` "
                        "prints it)")
    problems += [f"README.md: remove the line `{f}`: `{name} {cmd} --help` has no such form"
                 for f in extra[len(missing):]]
    problems += [f"README.md, usage block of {name}: add the line `{h}` (from `{name} {cmd} "
                 f"--help`; tools/usage_block.sh {name} prints the whole block)"
                 for h in missing[len(extra):]]
# within a command, the forms in --help's order
for cmd in commands:
    r = [f for f in readme_forms if command_of(f) == cmd and f in help_forms]
    h = [f for f in help_forms if command_of(f) == cmd and f in readme_forms]
    if r != h:
        problems.append(f"README.md: the forms of `{name} {cmd}` are not in --help's order: {h}")
# one problem a line (t_fail marks the first line, the TAP filter keeps "# " lines)
print("\n# ".join(problems))
sys.exit(1 if problems else 0)
PY
}

t_ok artifact_contract check artifact_contract
t_ok skdcci check skdcci
