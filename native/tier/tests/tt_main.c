/*
 * The C tier's test runner: every tier suite, then "N passed, N failed" as the last line;
 * exit status 0 only when nothing failed (make tier-test relies on it).
 */
#include "../../tests/harness.h"

void suite_tier_rules(void);
void suite_tier_warmstart(void);
void suite_tier_decode(void);
void suite_tier_faults(void);
void suite_tier_gate(void);
void suite_tier_events(void);
void suite_tier_engine(void);
void suite_tier_later(void);

int main(void) {
  suite_tier_rules();
  suite_tier_warmstart();
  suite_tier_decode();
  suite_tier_faults();
  suite_tier_gate();
  suite_tier_events();
  suite_tier_later();
  suite_tier_engine();
  return th_summary() == 0 ? 0 : 1;
}
