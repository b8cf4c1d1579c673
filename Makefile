# objstock: a Linux 7.3 memcg obj_stock patch series and the bench that proves it.
#
#   make              the A/B report: base 7.3 vs patched, in a memcg and in root
#   make check        build the patched kernel, boot it under QEMU, run the tests
#   make tree         a git tree (base + series) to hack in: $(CACHE)/tree
#   make series       export the tree's commits back to patches/
#   make cover        the cover letter's numbers, from results/latest/results.json
#
# Everything downloaded or built lives under CACHE (default ./build).

CACHE ?= $(CURDIR)/build
export CACHE
export DEB_VERSION DEB_SUITE KVM TCG_THREAD TIMEOUT CPUS MEM R QUICK WORKLOADS SELFTESTS SELFTESTS_SKIP

S := $(CURDIR)/scripts
SHELL := /bin/bash

RESULTS ?=
export RESULTS

.PHONY: cover build-each all report check check-debug baseline tree series fetch deps config build tools shell clean distclean help

all: report

report:
	@$(S)/bench.sh

check:
	@$(S)/check.sh

cover:
	@$(S)/cover.sh

# every patch builds on its own (a build after each patch; slow)
build-each:
	@$(S)/build-each.sh

check-debug:
	@DEBUG=1 $(S)/check.sh

baseline:
	@$(S)/baseline.sh

deps:
	@$(S)/deps.sh

fetch: deps
	@$(S)/fetch.sh

tree: fetch
	@$(S)/tree.sh
	@echo "tree: $(CACHE)/tree (branch objstock; base is tag objstock-base). Commit there, then 'make series'."

series:
	@$(S)/export.sh

build: tree
	@. $(S)/lib.sh && $(S)/build.sh $(CACHE)/tree $(CACHE)/obj/patched $$(fragments $(CACHE)/tree series)

tools:
	@$(S)/tools-build.sh

# an interactive guest on the patched kernel
shell: build
	@$(CACHE)/virtme-ng-*/vng --run $(CACHE)/obj/patched/arch/x86/boot/bzImage \
		--force-9p --user root $(if $(filter 1,$(KVM)),,--disable-kvm)

clean:
	rm -rf $(CACHE)/obj $(CACHE)/runs

distclean:
	rm -rf $(CACHE)

help:
	@sed -n '2,11p' Makefile
