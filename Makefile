# Developer shortcuts; CI runs scripts/test.sh.

# FUZZTIME is how long each fuzz target runs under `make fuzz`.
FUZZTIME ?= 1m

.PHONY: fuzz fuzz-smoke

# Run every fuzz target (found by scripts/fuzz-smoke.sh) for FUZZTIME each.
fuzz:
	FUZZTIME=$(FUZZTIME) bash scripts/fuzz-smoke.sh

# The few-seconds-per-target run that the test command uses.
fuzz-smoke:
	FUZZTIME=5s bash scripts/fuzz-smoke.sh

.PHONY: console

# Rebuild the web console's committed bundle (internal/admin/console/dist)
# from web/console with the versions its package.json pins.
console:
	cd web/console && npm install --no-audit --no-fund --no-package-lock && npm run build
