// SHA-256 (FIPS 180-4) of a byte string, as 64 lowercase hex digits. The verdict cache keys
// and the verdicts' task_hash/candidate_hash use it; written here so the core needs no
// crypto library for one hash.
#pragma once

#include <string>
#include <string_view>

namespace drtriton {

std::string sha256_hex(std::string_view data);

}  // namespace drtriton
