/* The C API in a few lines: read an image, convert it to float, write it as PFM.
 * Build: cc api_example.c $(pkg-config --cflags --libs fxkit) -o api_example */
#include <stdio.h>

#include <fxkit/fxkit.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s INPUT.png OUTPUT.pfm\n", argv[0]);
        return 2;
    }
    fx_context *ctx;
    fx_status st = fx_context_create(NULL, &ctx); /* auto device, all CPU threads */
    if (st != FX_OK) {
        fprintf(stderr, "fxkit: %s\n", fx_strerror(st));
        return 1;
    }
    fx_image in = {0}, out = {0};
    st = fx_image_read_file(ctx, argv[1], &in);
    if (st == FX_OK) st = fx_image_alloc(ctx, &out, in.width, in.height, in.channels, FX_F32);
    if (st == FX_OK) st = fx_image_convert(ctx, &in, &out, NULL);
    if (st == FX_OK) st = fx_image_write_file(ctx, argv[2], &out, NULL);
    if (st != FX_OK) fprintf(stderr, "fxkit: %s: %s\n", argv[1], fx_context_error(ctx));
    fx_image_free(&in);
    fx_image_free(&out);
    fx_context_destroy(ctx);
    return st == FX_OK ? 0 : 1;
}
