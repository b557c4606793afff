// Umbrella header for C++ users.
#pragma once

#include "quiver/any_index.hpp"
#include "quiver/collection.hpp"
#include "quiver/error.hpp"
#include "quiver/flat_index.hpp"
#include "quiver/hnsw_index.hpp"
#include "quiver/index_file.hpp"
#include "quiver/isa.hpp"
#include "quiver/metric.hpp"
#include "quiver/neighbor.hpp"
#include "quiver/quantized_index.hpp"
#include "quiver/search_params.hpp"
#include "quiver/version.hpp"
#include "quiver/work_observer.hpp"
