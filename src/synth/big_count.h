// BigCount: an exact unsigned integer of 256 bits for counting program structures (the
// number of structures with 20 operators is far beyond 64 bits) and for drawing one of
// them uniformly. Only what counting and sampling need: add, subtract, compare, draw.
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>

namespace drtriton {

class BigCount {
 public:
  BigCount() = default;
  explicit BigCount(uint64_t v) { limbs_[0] = v; }

  BigCount& operator+=(const BigCount& o) {
    unsigned __int128 carry = 0;
    for (int i = 0; i < kLimbs; ++i) {
      carry += static_cast<unsigned __int128>(limbs_[i]) + o.limbs_[i];
      limbs_[i] = static_cast<uint64_t>(carry);
      carry >>= 64;
    }
    if (carry) throw std::overflow_error("structure count exceeds 2^256: lower the difficulty");
    return *this;
  }
  // Requires *this >= o.
  BigCount& operator-=(const BigCount& o) {
    uint64_t borrow = 0;
    for (int i = 0; i < kLimbs; ++i) {
      uint64_t a = limbs_[i], b = o.limbs_[i];
      limbs_[i] = a - b - borrow;
      borrow = (a < b) || (a == b && borrow) ? 1 : 0;
    }
    return *this;
  }
  friend bool operator<(const BigCount& a, const BigCount& b) {
    for (int i = kLimbs - 1; i >= 0; --i)
      if (a.limbs_[i] != b.limbs_[i]) return a.limbs_[i] < b.limbs_[i];
    return false;
  }
  friend bool operator==(const BigCount& a, const BigCount& b) = default;
  bool is_zero() const { return *this == BigCount(); }

  // A uniform draw from [0, *this), by rejection on the bit length (at most 2 tries
  // expected). Requires *this > 0.
  template <typename Rng>
  BigCount uniform_below(Rng& rng) const {
    int top = kLimbs - 1;
    while (top > 0 && limbs_[top] == 0) --top;
    uint64_t mask = limbs_[top] == 0 ? 0 : ~uint64_t{0} >> __builtin_clzll(limbs_[top]);
    for (;;) {
      BigCount r;
      for (int i = 0; i < top; ++i) r.limbs_[i] = rng();
      r.limbs_[top] = rng() & mask;
      if (r < *this) return r;
    }
  }

  double to_double() const {
    double v = 0;
    for (int i = kLimbs - 1; i >= 0; --i)
      v = v * 18446744073709551616.0 + static_cast<double>(limbs_[i]);
    return v;
  }
  // Decimal digits.
  std::string to_string() const {
    BigCount n = *this;
    std::string s;
    do {
      unsigned __int128 rem = 0;
      for (int i = kLimbs - 1; i >= 0; --i) {
        unsigned __int128 cur = (rem << 64) | n.limbs_[i];
        n.limbs_[i] = static_cast<uint64_t>(cur / 10);
        rem = cur % 10;
      }
      s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(rem)));
    } while (!n.is_zero());
    return s;
  }

 private:
  static constexpr int kLimbs = 4;
  std::array<uint64_t, kLimbs> limbs_{};
};

}  // namespace drtriton
