#include "conformance_gpu/runner/stream_pool.hpp"

namespace hazardlab::conformance {

StreamPool& stream_pool() {
  static StreamPool* pool = new StreamPool;  // kept to the end: destroying streams after CUDA's teardown fails
  return *pool;
}

}  // namespace hazardlab::conformance
