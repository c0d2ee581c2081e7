#include "eval/service.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>

using json = nlohmann::json;

namespace drtriton {

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kMaxBodyBytes = size_t{64} << 20;  // 10,000 typical batch items fit
constexpr size_t kKeepAliveMax = 10000;             // a trainer's client reuses its connection
constexpr double kKeepAliveIdleS = 5;               // an idle connection is closed after this long
// Connections over a limit: up to kHealthOnlyConnections of them may ask GET /health or
// /stats, one request each, within kHealthOnlyTimeoutS; the rest get 503 at once.
constexpr int kHealthOnlyConnections = 8;
constexpr double kHealthOnlyTimeoutS = 2;
// HTTP threads beyond the connections served, so that a 503 never waits for a free thread.
constexpr size_t kRefusalThreads = 8;

// Set on the thread that serves a connection over the limits (handlers run on that thread).
thread_local bool t_health_only = false;

void reply(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(dump_json(body), "application/json");
}

// "ip" of a socket's peer (`peer`) or its own end; port through `port`.
std::string socket_address(int sock, bool peer, int& port) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  auto* sa = reinterpret_cast<sockaddr*>(&addr);
  if ((peer ? ::getpeername(sock, sa, &len) : ::getsockname(sock, sa, &len)) != 0) return "?";
  char ip[INET6_ADDRSTRLEN] = "?";
  if (addr.ss_family == AF_INET) {
    auto* in = reinterpret_cast<sockaddr_in*>(&addr);
    ::inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip);
    port = ntohs(in->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&addr);
    ::inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof ip);
    port = ntohs(in6->sin6_port);
  }
  return ip;
}

// A connection's socket as httplib reads and writes it, under a deadline. httplib 0.11 bounds
// each read but not a request's total time, so a client sending a byte a second held a thread
// forever; here a request must arrive whole, and its answer leave, within the deadline. The
// time a handler takes between the two (a verdict) is bounded by the pool's timeouts instead.
class DeadlineStream : public httplib::Stream {
 public:
  DeadlineStream(int sock, const std::atomic<int>& listening)
      : sock_(sock), listening_(listening) {}

  // Waits up to `idle_s` for the next request to begin; false when none does, or on stop.
  bool wait_for_request(double idle_s) {
    return begin_ < end_ || wait(POLLIN, Clock::now() + seconds(idle_s), true);
  }
  void start_request(double timeout_s) {
    timeout_ = seconds(timeout_s);
    read_until_ = Clock::now() + timeout_;
    writing_ = false;
  }
  bool timed_out() const { return timed_out_; }

  bool is_readable() const override { return begin_ < end_ || wait(POLLIN, read_until_, true); }
  bool is_writable() const override {
    return wait(POLLOUT, writing_ ? write_until_ : Clock::now() + timeout_, false);
  }
  ssize_t read(char* ptr, size_t size) override {
    while (begin_ == end_) {
      if (!is_readable()) return -1;
      ssize_t n = ::recv(sock_, buffer_, sizeof buffer_, MSG_DONTWAIT);
      if (n == 0) return 0;
      if (n < 0 && errno != EAGAIN && errno != EINTR) return -1;
      if (n > 0) {
        begin_ = 0;
        end_ = static_cast<size_t>(n);
      }
    }
    size_t n = std::min(size, end_ - begin_);
    std::memcpy(ptr, buffer_ + begin_, n);
    begin_ += n;
    return static_cast<ssize_t>(n);
  }
  ssize_t write(const char* ptr, size_t size) override {
    if (timed_out_) return -1;  // httplib would answer a request that never came whole with 400
    if (!writing_) {
      writing_ = true;
      write_until_ = Clock::now() + timeout_;
    }
    for (;;) {
      if (!is_writable()) return -1;
      // Non-blocking: a blocking send of a large answer to a client that does not read would
      // wait past the deadline.
      ssize_t n = ::send(sock_, ptr, size, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n >= 0 || (errno != EAGAIN && errno != EINTR)) return n;
    }
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = socket_address(sock_, true, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    ip = socket_address(sock_, false, port);
  }
  socket_t socket() const override { return sock_; }

 private:
  static Clock::duration seconds(double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  }
  // Polls in short slices so that a stopping server is noticed (`reading`: a write still
  // finishes on stop, since stop() first answers what is running).
  bool wait(short events, Clock::time_point until, bool reading) const {
    for (;;) {
      if (reading && listening_ == INVALID_SOCKET) return false;
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
      if (left.count() <= 0) {
        timed_out_ = true;
        return false;
      }
      pollfd p{sock_, events, 0};
      int ready = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 200)));
      if (ready > 0) return true;
      if (ready < 0 && errno != EINTR) return false;
    }
  }

  int sock_;
  const std::atomic<int>& listening_;  // the server's socket; INVALID_SOCKET once stopped
  char buffer_[4096];
  size_t begin_ = 0, end_ = 0;
  Clock::duration timeout_ = seconds(kHealthOnlyTimeoutS);
  Clock::time_point read_until_ = Clock::now() + timeout_, write_until_;
  bool writing_ = false;
  mutable bool timed_out_ = false;
};

// cpp-httplib's server with the connection limits and deadlines of ServiceLimits. Each
// accepted connection comes through process_and_close_socket on an HTTP thread.
class GuardedServer : public httplib::Server {
 public:
  explicit GuardedServer(const ServiceLimits& limits) : limits_(limits) {
    size_t threads =
        static_cast<size_t>(limits.max_connections + kHealthOnlyConnections) + kRefusalThreads;
    new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  }

  // httplib listens with a backlog of 5: a burst of clients (a trainer opening a connection
  // per worker) overflowed it, and each dropped connection waited a second to try again.
  void widen_backlog() { ::listen(svr_sock_, SOMAXCONN); }

 private:
  enum class Lane { kFull, kHealthOnly, kRefused };

  bool process_and_close_socket(socket_t sock) override {
    int port = 0;
    std::string client = socket_address(sock, true, port);
    // The headers and the body go out in two writes; with Nagle's algorithm the second waits
    // for the client's delayed ACK, which made every cache hit take 40 ms instead of < 1 ms.
    int yes = 1;
    ::setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    Lane lane = admit(client);
    if (lane == Lane::kRefused) {
      refuse(sock);
    } else {
      bool full = lane == Lane::kFull;
      t_health_only = !full;
      DeadlineStream stream(sock, svr_sock_);
      for (size_t left = full ? kKeepAliveMax : 1; left > 0; --left) {
        if (!stream.wait_for_request(kKeepAliveIdleS)) break;
        stream.start_request(full ? limits_.request_timeout_s : kHealthOnlyTimeoutS);
        bool closed = false;
        bool ok = process_request(stream, left == 1 || !is_running(), closed, nullptr);
        if (!ok || closed || stream.timed_out()) break;
      }
      release(client, lane);
    }
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
    return true;
  }

  Lane admit(const std::string& client) {
    std::lock_guard lock(mutex_);
    auto held = per_client_.find(client);  // no entry for a client refused (the map stays small)
    int by_client = held == per_client_.end() ? 0 : held->second;
    if (connections_ < limits_.max_connections && by_client < limits_.max_connections_per_client) {
      ++connections_;
      ++per_client_[client];
      return Lane::kFull;
    }
    if (health_only_ < kHealthOnlyConnections) {
      ++health_only_;
      return Lane::kHealthOnly;
    }
    return Lane::kRefused;
  }

  void release(const std::string& client, Lane lane) {
    std::lock_guard lock(mutex_);
    if (lane == Lane::kHealthOnly) {
      --health_only_;
      return;
    }
    --connections_;
    if (--per_client_[client] == 0) per_client_.erase(client);
  }

  // A 503 without reading the request: nothing a slow client sends can hold this thread.
  // What the client sends within 50 ms is read and dropped before closing, lest the close
  // reset the connection and lose the answer.
  static void refuse(int sock) {
    std::string body = dump_json({{"error", "too many connections; try again later"}});
    std::string head =
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
        "Connection: close\r\nContent-Length: " +
        std::to_string(body.size()) + "\r\n\r\n";
    std::string response = head + body;
    ::send(sock, response.data(), response.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    ::shutdown(sock, SHUT_WR);
    auto until = Clock::now() + std::chrono::milliseconds(50);
    char sink[4096];
    for (auto now = Clock::now(); now < until; now = Clock::now()) {
      pollfd p{sock, POLLIN, 0};
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count();
      if (::poll(&p, 1, static_cast<int>(left) + 1) <= 0) break;
      if (::recv(sock, sink, sizeof sink, MSG_DONTWAIT) <= 0) break;
    }
  }

  ServiceLimits limits_;
  std::mutex mutex_;
  int connections_ = 0, health_only_ = 0;
  std::map<std::string, int> per_client_;
};

}  // namespace

Service::Service(Verifier& verifier, WorkerPool& pool, const ServiceLimits& limits)
    : verifier_(verifier), pool_(pool), server_(std::make_unique<GuardedServer>(limits)) {
  httplib::Server& s = *server_;
  s.set_payload_max_length(kMaxBodyBytes);

  s.set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!t_health_only || (req.method == "GET" && (req.path == "/health" || req.path == "/stats")))
      return httplib::Server::HandlerResponse::Unhandled;
    reply(res, 503, {{"error", "too many connections; only GET /health and /stats are answered"}});
    return httplib::Server::HandlerResponse::Handled;
  });

  s.Post("/verify", [this](const httplib::Request& req, httplib::Response& res) {
    VerifyRequest request;
    try {
      request = parse_verify_request(parse_request_json(req.body), verifier_.device_kind());
      verifier_.check_request(request);
    } catch (const RequestError& e) {
      return reply(res, 400, {{"error", e.what()}});
    }
    reply(res, 200, verifier_.verify(request));
  });

  s.Post("/verify_batch", [this](const httplib::Request& req, httplib::Response& res) {
    std::vector<VerifyRequest> requests;
    try {
      json body = parse_request_json(req.body);
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
      reply(res, res.status,
            {{"error", std::to_string(res.status) + " for " + req.method + " " + req.path}});
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
  static_cast<GuardedServer&>(*server_).widen_backlog();
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
