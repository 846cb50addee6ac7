// Reading a workload source ahead on a thread of its own; see ReadAhead in
// kueuesim/trace/workload_source.h.
//
// The reader thread fills batches of workloads and hands each over under a
// mutex (one handover per batch, not per workload); at most kBatchesAhead
// batches wait. The last batch carries the end, or the error that stopped
// the reading, after its workloads, so the caller meets it exactly where a
// direct reading would.
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "kueuesim/trace/workload_source.h"

namespace kueuesim::trace {

absl::StatusOr<std::shared_ptr<model::Workload>> WorkloadSource::NextShared() {
  absl::StatusOr<std::optional<model::Workload>> next = Next();
  if (!next.ok()) return next.status();
  if (!next->has_value()) return std::shared_ptr<model::Workload>();
  return std::make_shared<model::Workload>(std::move(**next));
}

namespace {

class ReadAheadSource : public WorkloadSource {
 public:
  static constexpr size_t kBatchSize = 256;
  static constexpr size_t kBatchesAhead = 4;

  explicit ReadAheadSource(std::unique_ptr<WorkloadSource> source)
      : source_(std::move(source)), cluster_(source_->cluster()), report_(source_->report()),
        workloads_before_(source_->report().workloads) {
    reader_ = std::thread([this] { ReadBatches(); });
  }

  ~ReadAheadSource() override { StopReading(); }

  absl::StatusOr<std::shared_ptr<model::Workload>> NextShared() override {
    while (next_in_batch_ >= current_.workloads.size()) {
      if (current_.last) return current_.status.ok() ? absl::StatusOr<std::shared_ptr<model::Workload>>(nullptr)
                                                     : current_.status;
      std::unique_lock<std::mutex> lock(mutex_);
      filled_.wait(lock, [&] { return !ready_.empty() || stop_; });
      if (ready_.empty()) {
        // Stopped (report() was called) and every batch read ahead handed
        // out: the thread is gone, the source is read directly.
        lock.unlock();
        absl::StatusOr<std::shared_ptr<model::Workload>> next = source_->NextShared();
        if (next.ok() && *next != nullptr) ++handed_out_;
        return next;
      }
      current_ = std::move(ready_.front());
      ready_.pop_front();
      next_in_batch_ = 0;
      lock.unlock();
      emptied_.notify_one();
    }
    ++handed_out_;
    return std::move(current_.workloads[next_in_batch_++]);
  }

  absl::StatusOr<std::optional<model::Workload>> Next() override {
    absl::StatusOr<std::shared_ptr<model::Workload>> next = NextShared();
    if (!next.ok()) return next.status();
    if (*next == nullptr) return std::optional<model::Workload>();
    // Handed out once: this is the only owner.
    return std::optional<model::Workload>(std::move(**next));
  }

  std::string cluster() const override { return cluster_; }

  const ImportReport& report() const override {
    StopReading();
    report_ = source_->report();
    report_.workloads = workloads_before_ + handed_out_;
    return report_;
  }

 private:
  struct Batch {
    std::vector<std::shared_ptr<model::Workload>> workloads;
    bool last = false;     // the source ends after these workloads...
    absl::Status status;   // ...with this error, when not OK
  };

  void ReadBatches() {
    while (true) {
      Batch batch;
      batch.workloads.reserve(kBatchSize);
      while (batch.workloads.size() < kBatchSize) {
        absl::StatusOr<std::shared_ptr<model::Workload>> next = source_->NextShared();
        if (!next.ok() || *next == nullptr) {
          batch.last = true;
          if (!next.ok()) batch.status = next.status();
          break;
        }
        batch.workloads.push_back(*std::move(next));
      }
      std::unique_lock<std::mutex> lock(mutex_);
      emptied_.wait(lock, [&] { return stop_ || ready_.size() < kBatchesAhead; });
      // A batch read is always handed over, even when stopping: its
      // workloads have left the source.
      const bool done = batch.last || stop_;
      ready_.push_back(std::move(batch));
      lock.unlock();
      filled_.notify_one();
      if (done) return;
    }
  }

  // Stops the reader thread (it hands over the batch it is filling) and
  // waits for it; the source is then the caller's alone, read directly once
  // the batches read ahead are handed out.
  void StopReading() const {
    if (!reader_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    emptied_.notify_all();
    reader_.join();
  }

  std::unique_ptr<WorkloadSource> source_;
  const std::string cluster_;
  mutable ImportReport report_;
  const int64_t workloads_before_;
  int64_t handed_out_ = 0;
  // The batch being handed out (caller's side).
  Batch current_;
  size_t next_in_batch_ = 0;
  // Shared with the reader thread.
  mutable std::mutex mutex_;
  std::condition_variable filled_;
  mutable std::condition_variable emptied_;
  mutable bool stop_ = false;
  std::deque<Batch> ready_;
  mutable std::thread reader_;
};

}  // namespace

std::unique_ptr<WorkloadSource> ReadAhead(std::unique_ptr<WorkloadSource> source) {
  return std::make_unique<ReadAheadSource>(std::move(source));
}

}  // namespace kueuesim::trace
