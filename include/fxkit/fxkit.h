/* fxkit — fast image and audio filtering on NVIDIA GPUs and multi-core CPUs.
 * Umbrella header: include this one.
 */
#ifndef FXKIT_H
#define FXKIT_H

#include "common.h"
#include "context.h"
#include "image.h"
#include "audio.h"
#include "options.h"
#include "timing.h"
#include "io.h"
#include "gen.h"
#include "gpu.h"

#endif
