/* The floor of the design for Java: JNI functions doing what
 * Generator.nextId() does at the least (benchmarks/floor/floor.h) and
 * returning the ID as a long; the state lives in native memory behind a
 * handle, as the binding's generator does. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <jni.h>
#include <stdlib.h>

#include "floor.h"

JNIEXPORT jlong JNICALL Java_io_snowflakec_bench_Floor_create(
    JNIEnv *env, jclass cls, jlong epoch_ms, jint node_bits, jint seq_bits,
    jlong node) {
  (void)cls;
  floor_gen *f = NULL;
  if (seq_bits >= 1 && node_bits >= 0 && node_bits + seq_bits <= 62 &&
      node >= 0 && ((uint64_t)node >> node_bits) == 0)
    f = malloc(sizeof *f);
  if (!f) {
    (*env)->ThrowNew(
        env, (*env)->FindClass(env, "java/lang/IllegalArgumentException"),
        "sfc_floor: bad widths or node, or no memory");
    return 0;
  }
  floor_init(f, epoch_ms, (unsigned)node_bits, (unsigned)seq_bits,
             (uint64_t)node);
  return (jlong)(intptr_t)f;
}

JNIEXPORT jlong JNICALL Java_io_snowflakec_bench_Floor_next(JNIEnv *env,
                                                            jclass cls,
                                                            jlong handle) {
  (void)env;
  (void)cls;
  return (jlong)floor_next((floor_gen *)(intptr_t)handle);
}

JNIEXPORT void JNICALL Java_io_snowflakec_bench_Floor_free(JNIEnv *env,
                                                           jclass cls,
                                                           jlong handle) {
  (void)env;
  (void)cls;
  free((void *)(intptr_t)handle);
}
