# Other hosts and installation (included by the Makefile; docs/install.md,
# docs/testing.md): char signedness, the aarch64 cross check, install and
# uninstall, man pages and bash completion generated from --help, make dist.

# ---- char signedness: the byte automata must not depend on it
CHAR_TEST_FLAGS = OPT="-O1 -g" EXTRA_CFLAGS="-DSK_TEST_HOOKS $(1)"
check-unsigned-char:
	$(MAKE) --no-print-directory B=build/uchar $(call CHAR_TEST_FLAGS,-funsigned-char) test-bins
	tests/run.sh build/uchar $(FILTER)
check-signed-char:
	$(MAKE) --no-print-directory B=build/schar $(call CHAR_TEST_FLAGS,-fsigned-char) test-bins
	tests/run.sh build/schar $(FILTER)

# ---- aarch64: Debian's cross compiler and arm64 libraries, run by qemu-user
# (the host's release artifact_contract seals the demo pair: docs/testing.md)
AARCH64_B := build/aarch64
AARCH64_TRIPLET ?= aarch64-linux-gnu
AARCH64_PKG_CONFIG = env PKG_CONFIG_LIBDIR=/usr/lib/$(AARCH64_TRIPLET)/pkgconfig:/usr/share/pkgconfig $(PKG_CONFIG)
check-aarch64: $(B)/bin/artifact_contract
	@tools/check_aarch64.sh --need $(AARCH64_TRIPLET)
	$(MAKE) --no-print-directory B=$(AARCH64_B) CC=$(AARCH64_TRIPLET)-gcc \
	  PKG_CONFIG="$(AARCH64_PKG_CONFIG)" $(TEST_FLAGS) \
	  $(patsubst $(B)/%,$(AARCH64_B)/%,$(BINS) $(UNIT_BINS))
	tools/check_aarch64.sh --run $(AARCH64_TRIPLET) $(AARCH64_B)

# ---- man pages and completion, generated from the programs' own --help so
# that they cannot drift from it
PROGS := artifact_contract skdcci
MAN_PAGES := $(patsubst %,$(B)/man/%.1,$(PROGS))
COMPLETIONS := $(patsubst %,$(B)/completion/%,$(PROGS))
$(B)/man/%.1: $(B)/bin/% tools/manpage.sh
	@mkdir -p $(dir $@)
	tools/manpage.sh $< >$@.tmp && mv $@.tmp $@
$(B)/completion/%: $(B)/bin/% tools/completion.sh
	@mkdir -p $(dir $@)
	tools/completion.sh $< >$@.tmp && mv $@.tmp $@
man: $(MAN_PAGES)
completion: $(COMPLETIONS)

# ---- install: PREFIX=$HOME/.local needs no root (docs/install.md)
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
install: $(BINS) $(MAN_PAGES) $(COMPLETIONS)
	install -d '$(DESTDIR)$(BINDIR)' '$(DESTDIR)$(MANDIR)/man1' '$(DESTDIR)$(BASHCOMPDIR)'
	install -m 755 $(BINS) '$(DESTDIR)$(BINDIR)/'
	install -m 644 $(MAN_PAGES) '$(DESTDIR)$(MANDIR)/man1/'
	install -m 644 $(COMPLETIONS) '$(DESTDIR)$(BASHCOMPDIR)/'
uninstall:
	rm -f $(foreach p,$(PROGS),'$(DESTDIR)$(BINDIR)/$(p)' '$(DESTDIR)$(MANDIR)/man1/$(p).1' \
	  '$(DESTDIR)$(BASHCOMPDIR)/$(p)')

# ---- make dist: build/dist/skdcci-VERSION.tar.gz (tests/scripts/dist.sh);
# make distcheck: the tarball's own `make deps && make check` in a fresh
# directory (DISTCHECK_TARGET=... for another target)
DISTCHECK_TARGET ?= check
dist:
	tools/dist.sh build/dist
distcheck:
	tools/distcheck.sh "$$(tools/dist.sh build/dist)" $(DISTCHECK_TARGET)

.PHONY: check-unsigned-char check-signed-char check-aarch64 man completion install uninstall dist distcheck
