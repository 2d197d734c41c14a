#!/usr/bin/env bash
# Each pre-trade risk rule end to end, against the reference.
# Shared set-up and helpers: tests/integration/e2e_lib.sh.
#   e2e_risk.sh HEDGEWIRE FEEDGEN TABLEGEN SRCDIR SCENARIO
# SCENARIO: risk-kill | risk-disabled | risk-quantity | risk-notional | risk-collar | risk-position | risk-throttle
HEDGEWIRE=$1 FEEDGEN=$2 TABLEGEN=$3 SRCDIR=$4 SCENARIO=$5
# shellcheck source=tests/integration/e2e_lib.sh
. "$SRCDIR/tests/integration/e2e_lib.sh"

case $SCENARIO in
risk-kill)
	conf "[risk]" "kill = yes"
	trade
	expect_eq orders "$(value orders)" 0
	expect_eq reject_kill_switch "$(value reject_kill_switch)" "$(value decisions)"
	;;
risk-disabled)
	names=$(awk '$1 == "bbo" { print $3 }' "$T/truth" | head -5 | tr '\n' ' ')
	conf "[risk]" "disable = $names"
	trade
	[ "$(value reject_instrument_disabled)" -gt 0 ] || fail "no disabled rejects"
	$CMP --decode "$T/out.pcap" >"$T/decoded" || fail "decoder refused an order"
	grep -q "symbol='" "$T/decoded" || fail "no symbol decoded"
	for n in $names; do
		if grep -q "symbol='$n *'" "$T/decoded"; then
			fail "an order for disabled $n left"
		fi
	done
	;;
risk-quantity)
	conf "[risk]" "max_quantity = 500"
	trade
	[ "$(value reject_max_quantity)" -gt 0 ] || fail "no max_quantity rejects"
	;;
risk-notional)
	conf "[risk]" "max_notional = 20000"
	trade
	[ "$(value reject_max_notional)" -gt 0 ] || fail "no max_notional rejects"
	;;
risk-collar)
	conf "[risk]" "collar_bps = 2"
	trade
	[ "$(value reject_price_collar)" -gt 0 ] || fail "no collar rejects"
	;;
risk-position)
	conf "[risk]" "max_position = 1000"
	trade
	[ "$(value reject_position_limit)" -gt 0 ] || fail "no position rejects"
	;;
risk-throttle)
	conf "[risk]" "window_ms = 100" "max_orders_instrument = 3" \
		"max_orders_total = 20"
	trade
	[ "$(value reject_throttle_instrument)" -gt 0 ] || fail "no instrument throttle"
	[ "$(value reject_throttle_total)" -gt 0 ] || fail "no total throttle"
	;;
*)
	fail "unknown scenario $SCENARIO";;
esac
echo "PASS: e2e $SCENARIO"
