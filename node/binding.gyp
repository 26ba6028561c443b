{
  # The addon is the Node-API glue (bindings/node/addon.cc) compiled together
  # with the C core and its binding kit (core/kit). `npm pack` vendors both
  # into the package (src/, core/); scripts/core-dir.js picks the vendored
  # copy when present, else the repository's, so the same file builds in the
  # repository and from npm.
  "variables": {
    "sfc_werror%": "<!(node -p \"process.env.SNOWFLAKE_C_WERROR === '1' ? 'true' : 'false'\")"
  },
  "targets": [
    {
      "target_name": "snowflake_c",
      "sources": [
        "<!@(node scripts/core-dir.js glue)",
        "<!@(node scripts/core-dir.js sources)"
      ],
      "include_dirs": [
        "<!@(node scripts/core-dir.js include)"
      ],
      "dependencies": [
        "<!(node -p \"require('node-addon-api').targets\"):node_addon_api_except"
      ],
      "defines": [
        "NAPI_VERSION=8",
        "NODE_ADDON_API_DISABLE_DEPRECATED"
      ],
      "cflags": ["-fvisibility=hidden", "-pthread"],
      "cflags_c": ["-std=c11"],
      "cflags_cc": ["-std=c++17"],
      "ldflags": ["-pthread"],
      "conditions": [
        ["sfc_werror=='true'", {
          "cflags": ["-Werror"]
        }],
        ["OS=='win'", {
          # os_windows.c draws random bytes with BCryptGenRandom; the
          # claim's records name the user by its SID (advapi32).
          "libraries": ["bcrypt.lib", "advapi32.lib"]
        }],
        ["OS=='mac'", {
          "xcode_settings": {
            "GCC_SYMBOLS_PRIVATE_EXTERN": "YES",
            "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
            "GCC_C_LANGUAGE_STANDARD": "c11",
            "CLANG_CXX_LANGUAGE_STANDARD": "c++17"
          }
        }]
      ]
    }
  ]
}
