#include "eval/verdict_cache.h"

#include <sqlite3.h>

#include <chrono>
#include <stdexcept>

#include "eval/sha256.h"
#include "eval/verdict.h"
#include "eval/worker_pool.h"

using json = nlohmann::json;

namespace drtriton {

namespace {

// A prepared statement that finalizes itself.
struct Statement {
  sqlite3_stmt* stmt = nullptr;
  Statement(sqlite3* db, const char* sql) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK) {
      throw std::runtime_error(std::string("verdict cache: ") + sqlite3_errmsg(db));
    }
  }
  ~Statement() { sqlite3_finalize(stmt); }
  void bind(int index, const std::string& text) {
    sqlite3_bind_text(stmt, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  }
  std::string column_text(int index) {
    const unsigned char* text = sqlite3_column_text(stmt, index);
    return text ? std::string(reinterpret_cast<const char*>(text),
                              static_cast<size_t>(sqlite3_column_bytes(stmt, index)))
                : std::string();
  }
};

// A stored row, or nothing for a damaged one (judged again): not a JSON object, or nested deeper
// than any verdict is, which nlohmann's recursive copy and dump would not survive.
std::optional<json> parse_row(const std::string& text) {
  if (json_depth(text) > kMaxJsonDepth) return std::nullopt;
  json j = json::parse(text, nullptr, false);
  if (!j.is_object()) return std::nullopt;  // a parse error is discarded, not an object
  return j;
}

double unix_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

VerdictCache::VerdictCache(const std::string& path) : path_(path) {
  if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) {
    std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw std::runtime_error(path + ": cannot open the verdict cache: " + why);
  }
  try {
    // WAL: readers never wait for the writer, and a commit is one append, not a rewrite.
    // synchronous=NORMAL keeps every commit through a killed process (only a power loss can
    // take the last ones), at a fraction of FULL's cost.
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=NORMAL");
    sqlite3_busy_timeout(db_, 5000);  // another service on the same file
    exec(
        "CREATE TABLE IF NOT EXISTS verdicts("
        "key TEXT PRIMARY KEY, verdict TEXT NOT NULL, created REAL NOT NULL)");
    exec(
        "CREATE TABLE IF NOT EXISTS reference_timings("
        "task_hash TEXT NOT NULL, device TEXT NOT NULL, context TEXT NOT NULL, "
        "json TEXT NOT NULL, PRIMARY KEY(task_hash, device, context))");
  } catch (const std::exception& e) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw std::runtime_error(path + ": " + e.what());
  }
}

VerdictCache::~VerdictCache() {
  sqlite3_close(db_);
}

void VerdictCache::exec(const char* sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &error) != SQLITE_OK) {
    std::string why = error ? error : "unknown error";
    sqlite3_free(error);
    throw std::runtime_error("verdict cache: " + why);
  }
}

std::optional<json> VerdictCache::get(const std::string& key) {
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT verdict FROM verdicts WHERE key = ?");
  s.bind(1, key);
  if (sqlite3_step(s.stmt) != SQLITE_ROW) return std::nullopt;
  return parse_row(s.column_text(0));
}

void VerdictCache::put(const std::string& key, const json& verdict) {
  std::lock_guard lock(mutex_);
  Statement s(db_, "INSERT OR REPLACE INTO verdicts(key, verdict, created) VALUES (?, ?, ?)");
  s.bind(1, key);
  s.bind(2, dump_json(verdict));  // a worker's log may hold any bytes
  sqlite3_bind_double(s.stmt, 3, unix_seconds());
  if (sqlite3_step(s.stmt) != SQLITE_DONE) {
    throw std::runtime_error(path_ + ": cannot store a verdict: " + sqlite3_errmsg(db_));
  }
}

std::optional<json> VerdictCache::reference_timing(const std::string& task_hash,
                                                   const std::string& device,
                                                   const std::string& context) {
  std::lock_guard lock(mutex_);
  Statement s(db_,
              "SELECT json FROM reference_timings WHERE task_hash = ? AND device = ? AND "
              "context = ?");
  s.bind(1, task_hash);
  s.bind(2, device);
  s.bind(3, context);
  if (sqlite3_step(s.stmt) != SQLITE_ROW) return std::nullopt;
  return parse_row(s.column_text(0));
}

void VerdictCache::put_reference_timing(const std::string& task_hash, const std::string& device,
                                        const std::string& context, const json& timing) {
  std::lock_guard lock(mutex_);
  Statement s(db_,
              "INSERT OR REPLACE INTO reference_timings(task_hash, device, context, json) "
              "VALUES (?, ?, ?, ?)");
  s.bind(1, task_hash);
  s.bind(2, device);
  s.bind(3, context);
  s.bind(4, dump_json(timing));
  if (sqlite3_step(s.stmt) != SQLITE_DONE) {
    throw std::runtime_error(path_ + ": cannot store a reference timing: " + sqlite3_errmsg(db_));
  }
}

size_t VerdictCache::size() {
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT COUNT(*) FROM verdicts");
  if (sqlite3_step(s.stmt) != SQLITE_ROW) return 0;
  return static_cast<size_t>(sqlite3_column_int64(s.stmt, 0));
}

std::string verdict_cache_key(const std::string& task_hash, const std::string& candidate_hash,
                              const WorkerIdentity& worker, const json& options) {
  json canonical = options;
  canonical.erase("reference");
  return sha256_hex(task_hash + "|" + candidate_hash + "|" + worker.device + "|" +
                    worker.versions.dump() + "|" + canonical.dump());
}

std::string reference_context(const WorkerIdentity& worker, const json& options) {
  return json{{"versions", worker.versions}, {"eval_mode", options.value("eval_mode", false)}}
      .dump();
}

}  // namespace drtriton
