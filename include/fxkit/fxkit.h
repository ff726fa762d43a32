/* fxkit — fast image and audio filtering on NVIDIA GPUs and multi-core CPUs.
 * Umbrella header: include this one.
 */
#ifndef FXKIT_H
#define FXKIT_H

#include "audio.h"
#include "common.h"
#include "context.h"
#include "filter.h"
#include "equalize.h"
#include "gen.h"
#include "gpu.h"
#include "image.h"
#include "io.h"
#include "image_stream.h"
#include "normalize.h"
#include "options.h"
#include "timing.h"

#endif
