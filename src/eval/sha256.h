// SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104) of a byte string, as lowercase hex. The
// verdict cache keys and the verdicts' task_hash/candidate_hash use the hash; the worker
// protocol authenticates each line with the HMAC (src/eval/README.md). Written here so the
// core needs no crypto library for one hash.
#pragma once

#include <string>
#include <string_view>

namespace drtriton {

std::string sha256_hex(std::string_view data);
std::string sha256_raw(std::string_view data);  // the 32 digest bytes
std::string to_hex(std::string_view bytes);
std::string hmac_sha256_hex(std::string_view key, std::string_view data);
// For comparing MACs: the time taken does not depend on where two strings first differ.
bool equal_in_constant_time(std::string_view a, std::string_view b);

}  // namespace drtriton
