// Registers IndexStream (index_stream.hpp); the index classes' fromStream() are registered with
// the classes in quiver_bindings.cpp.
#include <emscripten/bind.h>

#include "index_stream.hpp"

EMSCRIPTEN_BINDINGS(quiver_index_stream) {
  using namespace emscripten;
  using quiver::bindings::IndexStreamBinding;
  class_<IndexStreamBinding>("IndexStream")
      .class_function("create", &IndexStreamBinding::create, allow_raw_pointers())
      .function("buffer", &IndexStreamBinding::buffer)
      .function("capacity", &IndexStreamBinding::capacity)
      .function("push", &IndexStreamBinding::push)
      .function("finish", &IndexStreamBinding::finish)
      .function("bytesSeen", &IndexStreamBinding::bytes_seen);
}
