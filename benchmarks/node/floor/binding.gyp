# The floor of the design for the Node.js benchmark: one plain Node-API addon
# (floor.c over ../../floor/floor.h), built by benchmarks/run.
{
  "targets": [
    {
      "target_name": "sfc_floor",
      "sources": ["floor.c"],
      "include_dirs": ["../../floor"],
      "cflags_c": ["-std=c11", "-Wall", "-Wextra", "-Werror"],
    }
  ]
}
