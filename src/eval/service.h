// The verifier over HTTP (docs/verifier.md), JSON in and out:
//   POST /verify        {"task", "candidate", "options"}  -> a verdict
//   POST /verify_batch  {"items": [...]}                  -> {"verdicts": [...]}, same order
//   GET  /health        -> {"ok": true, "workers": N}
//   GET  /stats         -> queue_length, workers, busy, verdicts_served, cache_hits, ...
// A malformed request gets HTTP 400 with {"error": "..."}; anything that reaches a worker
// gets a verdict, a crash or a timeout included. A client over the connection limits gets 503
// (ServiceLimits; src/eval/README.md, "HTTP").
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "eval/verifier.h"
#include "eval/worker_pool.h"

namespace httplib {
class Server;
}

namespace drtriton {

// What hostile or careless clients can hold. A connection over a limit may still ask GET
// /health or /stats (a few such connections, briefly); anything else gets 503.
struct ServiceLimits {
  int max_connections = 128;            // open connections, all clients together
  int max_connections_per_client = 64;  // from one address; a trainer opens one per worker
  double request_timeout_s = 30;        // to receive one whole request, and to send its answer
};

class Service {
 public:
  Service(Verifier& verifier, WorkerPool& pool, const ServiceLimits& limits = {});
  ~Service();

  // Binds the address; port 0 takes any free port. Returns the port. Throws
  // std::runtime_error when the address cannot be bound.
  int bind(const std::string& host, int port);
  // Serves until stop() (from another thread or a signal handler thread).
  void run();
  void stop();

  nlohmann::json stats() const;

 private:
  Verifier& verifier_;
  WorkerPool& pool_;
  std::unique_ptr<httplib::Server> server_;
};

}  // namespace drtriton
