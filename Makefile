# kbloom — see README.md.
#   make          build kmod/kbloom.ko and userspace/bloomctl
#   make check    install dependencies, build, run every test tier
#   make demo     install dependencies, build, run the demo in the test VM
#   make bench    the engine beside libbloom, the packet path in the VM beside
#                 the BPF Bloom map: bench/results.md, bench/*.png (~25 min)
#   make ablate   where the packet path's cost is: kbloom.ko without one step
#                 at a time, in the VM: bench/ablate/results.md (~10 min)
#   make style    checkpatch --strict on the kernel sources
#   make coverage the debug tier alone: the module's line and branch
#                 coverage, build/coverage/index.html (~12 min)
#   make soak     the fuzzer for 1 000 000 messages beside the stress test
#                 for 10 minutes, on the debug kernel (scripts/soak; hours:
#                 about 50 messages a second under emulation)
#   make clean

KVER := $(shell scripts/kver)
# The kernel the test VM boots: check and demo always build for it.
VM_KDIR := /lib/modules/$(KVER)/build
# A plain `make` builds for the running kernel when its headers are there.
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) $(VM_KDIR))

KERNEL_SOURCES := $(filter-out %.mod.c,$(wildcard kmod/*.c kmod/*.h kmod/engine/*.c kmod/engine/*.h)) \
	kmod/uapi/kbloom.h bench/kadd/addbench.c

all: kmod userspace

kmod:
	$(MAKE) -C kmod KDIR=$(KDIR)

userspace:
	$(MAKE) -C userspace

deps:
	scripts/deps

# Everything the test tiers need, built for the VM's kernel.
test-build: deps build-tests

build-tests:
	$(MAKE) -C kmod KDIR=$(VM_KDIR)
	$(MAKE) -C userspace
	$(MAKE) -C tests/unit
	$(MAKE) -C tests/fuzz
	$(MAKE) -C tests/vm
	$(MAKE) -C bench

# tests/run builds (build-tests) beside the debug kernel's build.
check: deps
	tests/run

demo: deps
	$(MAKE) -C kmod KDIR=$(VM_KDIR)
	$(MAKE) -C userspace
	scripts/vm --timeout 900 scripts/demo

# The engine beside libbloom (host), the packet path beside the BPF Bloom
# filter map (test VM): bench/results.md and its plots.
bench: deps
	$(MAKE) -C kmod KDIR=$(VM_KDIR)
	$(MAKE) -C userspace
	$(MAKE) -C bench run

# The packet path's cost, step by step (bench/ablate/variants.py).
ablate: deps
	$(MAKE) -C userspace
	$(MAKE) -C bench/ablate run

style:
	perl $$(scripts/ksrc)/scripts/checkpatch.pl --no-tree --strict --terse \
		--ignore FILE_PATH_CHANGES -f $(KERNEL_SOURCES)

clean:
	$(MAKE) -C kmod KDIR=$(KDIR) clean
	$(MAKE) -C userspace clean
	$(MAKE) -C tests/unit clean
	$(MAKE) -C tests/fuzz clean
	$(MAKE) -C tests/vm clean
	rm -rf build/kmod-6.12 build/kmod-debug
	$(MAKE) -C bench clean

# ---- The second kernel (6.12), install, DKMS. See docs/install.md.

# The module's sources as Kbuild and DKMS see them (kmod/Makefile is only
# the in-checkout wrapper).
KMOD_SRCS := $(filter-out %.mod.c,$(wildcard kmod/Kbuild kmod/*.c kmod/*.h \
	kmod/engine/*.c kmod/engine/*.h kmod/uapi/*.h))

# The module for the second kernel the VM tests, built from a copy of the
# sources in build/kmod-6.12 (Kbuild before 6.13 cannot put an external
# module's objects elsewhere), so kmod/ keeps its 6.1 build.
KVER_612 := $(shell scripts/kver 6.12)
KMOD_612 := build/kmod-6.12

kmod-6.12:
	@test -d /lib/modules/$(KVER_612)/build || \
		{ echo "kmod-6.12: linux-headers-$(KVER_612) missing (run scripts/deps)" >&2; exit 1; }
	@mkdir -p $(KMOD_612)
	@cd kmod && cp -p --parents $(KMOD_SRCS:kmod/%=%) $(CURDIR)/$(KMOD_612)/
	@cp -p dkms.conf $(KMOD_612)/
	$(MAKE) -C /lib/modules/$(KVER_612)/build M=$(CURDIR)/$(KMOD_612) modules

# The module for the debug kernel (scripts/debug-kernel: KASAN, lockdep,
# kmemleak, ...), built like kmod-6.12 from a copy of the sources, with
# gcov profiling (its coverage: scripts/coverage) and KCOV instrumentation
# (the debug kernel instruments nothing else: tests/vm/kcovfuzz_test.c's
# coverage feedback is the module's alone). No sibling calls: a function
# ending in a trace call would jump to it, and KCOV would record the
# caller's return address in the kernel instead of the module's PC.
KMOD_DEBUG := build/kmod-debug

kmod-debug:
	@kdir=$$(scripts/debug-kernel) && mkdir -p $(KMOD_DEBUG) && \
	(cd kmod && cp -p --parents $(KMOD_SRCS:kmod/%=%) $(CURDIR)/$(KMOD_DEBUG)/) && \
	cp -p dkms.conf $(KMOD_DEBUG)/ && \
	$(MAKE) -C $$kdir M=$(CURDIR)/$(KMOD_DEBUG) GCOV_PROFILE=y \
		KCOV_INSTRUMENT=y KCFLAGS=-fno-optimize-sibling-calls modules

# The debug tier alone, and the module's coverage report it writes
# (build/coverage/index.html; the totals are in the tier's output).
coverage: test-build
	tests/run vm-debug

# The soak (not part of check): the coverage-guided fuzzer for a million
# messages with allocation failures injected, beside the stress test for
# 10 minutes, on the debug kernel, then a kmemleak scan (scripts/soak;
# KBLOOM_SOAK_MINUTES, KBLOOM_SOAK_MESSAGES make it shorter or longer).
soak: deps
	scripts/soak

# The VM suites on 6.12 only (make check runs them too, as tier vm-6.12).
check-6.12: deps
	$(MAKE) -C userspace
	$(MAKE) -C tests/vm
	tests/run vm-6.12

# DKMS: the sources go to $(DKMS_SRCTREE)/kbloom-VERSION, dkms builds and
# installs the module for KVER=... (on the command line) or else for every
# installed kernel with headers, and runs depmod. DKMS and DKMS_SRCTREE
# exist so tests can point dkms at a scratch tree (--dkmstree,
# --sourcetree, --installtree).
DKMS ?= dkms
DKMS_SRCTREE ?= /usr/src
DKMS_NAME := kbloom
DKMS_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' dkms.conf)
DKMS_SRC = $(DKMS_SRCTREE)/$(DKMS_NAME)-$(DKMS_VERSION)
# (those dkms.conf's BUILD_EXCLUSIVE_KERNEL accepts: 6.1 and newer)
DKMS_KREGEX = $(shell sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$$/\1/p' dkms.conf)
ifeq ($(origin KVER),command line)
DKMS_KVERS = $(KVER)
else
DKMS_KVERS = $(shell printf '%s\n' $(patsubst /lib/modules/%/build/Makefile,%,\
	$(wildcard /lib/modules/*/build/Makefile)) | grep -E '$(DKMS_KREGEX)')
endif

# The DKMS source tree alone (also what debian/rules packages).
dkms-source:
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cp dkms.conf $(DKMS_SRC)/
	cd kmod && cp --parents $(KMOD_SRCS:kmod/%=%) $(DKMS_SRC)/

dkms-install:
	@command -v $(firstword $(DKMS)) >/dev/null || \
		{ echo "dkms-install: dkms missing (apt-get install dkms)" >&2; exit 1; }
	@test -n "$(DKMS_KVERS)" || \
		{ echo "dkms-install: no kernel headers in /lib/modules/*/build (install linux-headers-$$(uname -r), or give KVER=)" >&2; exit 1; }
	$(MAKE) --no-print-directory dkms-source
	$(DKMS) status -m $(DKMS_NAME) -v $(DKMS_VERSION) | grep -q . || \
		$(DKMS) add $(DKMS_NAME)/$(DKMS_VERSION)
	$(DKMS) build --force $(DKMS_NAME)/$(DKMS_VERSION) $(addprefix -k ,$(DKMS_KVERS))
	$(DKMS) install --force $(DKMS_NAME)/$(DKMS_VERSION) $(addprefix -k ,$(DKMS_KVERS))

# Every version dkms knows, from KVER=... only or from all kernels; the
# sources go when no kernel has the version any more.
dkms-remove:
	@command -v $(firstword $(DKMS)) >/dev/null || exit 0; \
	for v in $$($(DKMS) status -m $(DKMS_NAME) | sed -n 's|^$(DKMS_NAME)/\([^,:]*\)[,:].*|\1|p' | sort -u); do \
		echo "$(DKMS) remove $(DKMS_NAME)/$$v $(if $(filter command line,$(origin KVER)),-k $(KVER),--all)"; \
		$(DKMS) remove $(DKMS_NAME)/$$v $(if $(filter command line,$(origin KVER)),-k $(KVER),--all) || exit 1; \
		if ! $(DKMS) status -m $(DKMS_NAME) -v $$v | grep -q .; then \
			echo "rm -rf $(DKMS_SRCTREE)/$(DKMS_NAME)-$$v"; rm -rf $(DKMS_SRCTREE)/$(DKMS_NAME)-$$v; \
		fi; \
	done

# make install: bloomctl (and its man page and bash completion when they
# exist) under $(DESTDIR)$(PREFIX), the service (systemd/: units in
# $(UNITDIR), kbloom-service, /etc/kbloom/kbloom.conf, /etc/default/kbloom),
# and the module: MODULE_INSTALL=dkms
# (the default when dkms is installed and DESTDIR is empty), kbuild
# (make modules_install for KDIR, unsigned: the key of Debian's kernels is
# not shipped; then depmod unless DESTDIR is set) or none.
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# The service (systemd/): units, the script they run, the configuration and
# its defaults (kept when they exist: they are the admin's).
SYSCONFDIR ?= /etc
UNITDIR ?= $(if $(filter /usr,$(PREFIX)),/lib/systemd/system,$(PREFIX)/lib/systemd/system)
UNITS := kbloom.service kbloom-archive@.service kbloom-metrics.service kbloom-metrics.timer
MODULE_INSTALL ?= $(if $(DESTDIR),kbuild,$(if $(shell command -v dkms),dkms,kbuild))

install: userspace
	install -D -m 0755 userspace/bloomctl $(DESTDIR)$(SBINDIR)/bloomctl
	if [ -f userspace/bloomctl.8 ]; then \
		install -D -m 0644 userspace/bloomctl.8 $(DESTDIR)$(MANDIR)/man8/bloomctl.8; fi
	if [ -f userspace/bloomctl.bash-completion ]; then \
		install -D -m 0644 userspace/bloomctl.bash-completion $(DESTDIR)$(BASHCOMPDIR)/bloomctl; fi
	install -D -m 0755 systemd/kbloom-service $(DESTDIR)$(SBINDIR)/kbloom-service
	install -d -m 0755 $(DESTDIR)$(UNITDIR)
	for u in $(UNITS); do \
		sed 's|@SBINDIR@|$(SBINDIR)|g' systemd/$$u >$(DESTDIR)$(UNITDIR)/$$u && \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$$u || exit 1; \
	done
	[ -e $(DESTDIR)$(SYSCONFDIR)/kbloom/kbloom.conf ] || \
		install -D -m 0644 systemd/kbloom.conf $(DESTDIR)$(SYSCONFDIR)/kbloom/kbloom.conf
	[ -e $(DESTDIR)$(SYSCONFDIR)/default/kbloom ] || \
		install -D -m 0644 systemd/kbloom.default $(DESTDIR)$(SYSCONFDIR)/default/kbloom
ifeq ($(MODULE_INSTALL),dkms)
	$(MAKE) dkms-install
else ifeq ($(MODULE_INSTALL),kbuild)
	$(MAKE) -C kmod KDIR=$(KDIR)
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod INSTALL_MOD_PATH=$(DESTDIR) INSTALL_MOD_DIR=updates \
		CONFIG_MODULE_SIG_ALL= modules_install
	$(if $(DESTDIR),,depmod -a $$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$$/\1/p' \
		$(KDIR)/include/generated/utsrelease.h))
else ifneq ($(MODULE_INSTALL),none)
	$(error MODULE_INSTALL is dkms, kbuild or none)
endif

.PHONY: kmod-6.12 check-6.12 dkms-source dkms-install dkms-remove install

.PHONY: all kmod userspace deps test-build build-tests check demo bench ablate style clean coverage kmod-debug soak
