#include "eval/service.h"

#include <httplib.h>

#include <stdexcept>

using json = nlohmann::json;

namespace drtriton {

namespace {

// HTTP threads, each blocked on one request's verdict while it runs; more than the workers,
// so /health and /stats and cache hits stay answerable while every worker is busy.
constexpr size_t kHttpThreads = 64;

void reply(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(), "application/json");
}

json parse_body(const httplib::Request& req) {
  json body = json::parse(req.body, nullptr, false);
  if (body.is_discarded()) throw RequestError("the request body is not valid JSON");
  return body;
}

}  // namespace

Service::Service(Verifier& verifier, WorkerPool& pool)
    : verifier_(verifier), pool_(pool), server_(std::make_unique<httplib::Server>()) {
  httplib::Server& s = *server_;
  s.new_task_queue = [] { return new httplib::ThreadPool(kHttpThreads); };
  s.set_keep_alive_max_count(10000);  // a trainer's client reuses its connection
  // The headers and the body go out in two writes; with Nagle's algorithm the second waits
  // for the client's delayed ACK, which made every cache hit take 40 ms instead of < 1 ms.
  s.set_tcp_nodelay(true);

  s.Post("/verify", [this](const httplib::Request& req, httplib::Response& res) {
    VerifyRequest request;
    try {
      request = parse_verify_request(parse_body(req), verifier_.device_kind());
      verifier_.check_request(request);
    } catch (const RequestError& e) {
      return reply(res, 400, {{"error", e.what()}});
    }
    reply(res, 200, verifier_.verify(request));
  });

  s.Post("/verify_batch", [this](const httplib::Request& req, httplib::Response& res) {
    std::vector<VerifyRequest> requests;
    try {
      json body = parse_body(req);
      if (!body.is_object() || !body.contains("items") || !body["items"].is_array()) {
        throw RequestError("expected {\"items\": [...]}");
      }
      const json& items = body["items"];
      for (size_t i = 0; i < items.size(); ++i) {
        std::string where = "items[" + std::to_string(i) + "]";
        requests.push_back(parse_verify_request(items[i], verifier_.device_kind(), where));
        try {
          verifier_.check_request(requests.back());
        } catch (const RequestError& e) {
          throw RequestError(where + ": " + e.what());
        }
      }
    } catch (const RequestError& e) {
      return reply(res, 400, {{"error", e.what()}});
    }
    reply(res, 200, {{"verdicts", verifier_.verify_batch(requests)}});
  });

  s.Get("/health", [this](const httplib::Request&, httplib::Response& res) {
    reply(res, 200, {{"ok", true}, {"workers", pool_.stats().workers}});
  });

  s.Get("/stats",
        [this](const httplib::Request&, httplib::Response& res) { reply(res, 200, stats()); });

  // Errors without a body of their own (an unknown path, a wrong method) get a JSON one too.
  s.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.body.empty()) {
      res.set_content(
          json{{"error", std::to_string(res.status) + " for " + req.method + " " + req.path}}
              .dump(),
          "application/json");
    }
  });
  s.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "unknown error";
        try {
          std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        reply(res, 500, {{"error", "internal error: " + what}});
      });
}

Service::~Service() = default;

int Service::bind(const std::string& host, int port) {
  int bound = port;
  if (port == 0) {
    bound = server_->bind_to_any_port(host);
  } else if (!server_->bind_to_port(host, port)) {
    bound = -1;
  }
  if (bound <= 0) {
    throw std::runtime_error("cannot listen on " + host + ":" + std::to_string(port) +
                             " (address in use, or not an address of this machine)");
  }
  return bound;
}

void Service::run() {
  server_->listen_after_bind();
}

void Service::stop() {
  server_->stop();
}

json Service::stats() const {
  PoolStats p = pool_.stats();
  return {{"queue_length", p.queue_length},
          {"workers", p.workers},
          {"busy", p.busy},
          {"verdicts_served", verifier_.verdicts_served()},
          {"cache_hits", verifier_.cache_hits()},
          {"worker_restarts", p.worker_restarts},
          {"device", pool_.identity().device}};
}

}  // namespace drtriton
