// zlib, for the gzip copies the HTML5 deploy writes beside compressible files.
#include <zlib.h>
