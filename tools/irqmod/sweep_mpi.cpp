#include "sweep_mpi.hpp"

#include <cstdlib>

#ifdef IRQMOD_HAVE_MPI
#include <mpi.h>
#endif

namespace irqmod::cli {

#ifdef IRQMOD_HAVE_MPI

MpiWorld start_mpi() {
  MpiWorld world;
  const bool launched =
      std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") || std::getenv("PMI_SIZE");
  if (!launched) return world;
  MPI_Init(nullptr, nullptr);
  MPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world.size);
  return world;
}

void finish_mpi(const MpiWorld& world) {
  (void)world;
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Finalize();
}

std::vector<std::string> gather_text(const MpiWorld& world, const std::string& text) {
  if (world.size == 1) return {text};
  const int length = static_cast<int>(text.size());
  std::vector<int> lengths(static_cast<std::size_t>(world.size));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(lengths.size(), 0);
  int total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::string all(static_cast<std::size_t>(world.rank == 0 ? total : 0), '\0');
  MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
              0, MPI_COMM_WORLD);
  std::vector<std::string> out;
  if (world.rank != 0) return out;
  for (std::size_t r = 0; r < lengths.size(); ++r)
    out.push_back(
        all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r])));
  return out;
}

int broadcast_int(const MpiWorld& world, int value) {
  if (world.size > 1) MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return value;
}

#else

MpiWorld start_mpi() {
  return {};
}
void finish_mpi(const MpiWorld&) {}
std::vector<std::string> gather_text(const MpiWorld&, const std::string& text) {
  return {text};
}
int broadcast_int(const MpiWorld&, int value) {
  return value;
}

#endif

}  // namespace irqmod::cli
