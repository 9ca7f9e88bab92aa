// Uses irqmod::policy alone: i40e's ITR encoding of 50 us (2 us units: exact, 50 us back).
#include <cstdio>

#include "irqmod/policy/itr.hpp"

int main() {
  const auto encoding = irqmod::itr::encode_usecs("i40e", 50);
  if (!encoding) {
    std::fprintf(stderr, "policy_consumer: %s\n", encoding.error().what().c_str());
    return 1;
  }
  std::printf("i40e 50 us -> register 0x%08X, interval %lld ns\n",
              static_cast<unsigned>(encoding->register_value),
              static_cast<long long>(encoding->interval.count()));
  return encoding->interval.count() == 50'000 ? 0 : 1;
}
