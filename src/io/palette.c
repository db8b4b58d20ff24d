/* io/palette.c - the colours of the pictures (io/palette.h). */
#include "io/palette.h"

const cg__rgb cg__wall_rgb = {46, 40, 36};     /* dark rock */
const cg__rgb cg__floor_rgb = {226, 212, 178}; /* sand */

/* Points of named kinds 'A'..'Z': Green-Armytage's colour alphabet (P.
 * Green-Armytage, "A Colour Alphabet and the Limits of Colour Coding",
 * Colour: Design & Creativity 5, 2010), 26 colours chosen to be told apart,
 * each named for its letter (amethyst, blue, caramel, ..., zinnia). */
static const cg__rgb kinds[26] = {
    {240, 163, 255}, {0, 117, 220},  {153, 63, 0},    {76, 0, 92},     {25, 25, 25},
    {0, 92, 49},     {43, 206, 72},  {255, 204, 153}, {128, 128, 128}, {148, 255, 181},
    {143, 124, 0},   {157, 204, 0},  {194, 0, 136},   {0, 51, 128},    {255, 164, 5},
    {255, 168, 187}, {66, 102, 0},   {255, 0, 16},    {94, 241, 242},  {0, 153, 143},
    {224, 255, 102}, {116, 10, 255}, {153, 0, 0},     {255, 255, 128}, {255, 225, 0},
    {255, 80, 5},
};

const cg__rgb cg__outline_rgb = {0, 0, 0};

cg__rgb cg__mark_rgb(uint8_t sym)
{
    switch (sym) {
    case '<':
        return (cg__rgb){40, 175, 60}; /* entrance: green */
    case '>':
        return (cg__rgb){205, 40, 40}; /* exit: red */
    case 'x':
        return (cg__rgb){95, 110, 140}; /* blocked: slate */
    default:
        if (sym >= 'A' && sym <= 'Z')
            return kinds[sym - 'A'];
        return (cg__rgb){240, 190, 30}; /* a plain point of interest: gold */
    }
}

cg__rgb cg__ramp_rgb(uint32_t i, uint32_t n)
{
    static const cg__rgb anchors[] = {
        {253, 231, 37}, {94, 201, 98}, {33, 145, 140}, {59, 82, 139}, {68, 1, 84},
    };
    const uint64_t segs = sizeof anchors / sizeof anchors[0] - 1;
    uint64_t pos = (uint64_t)i * segs * 256 / (n - 1); /* 8.8 fixed point along the anchors */
    uint64_t k = pos >> 8 < segs ? pos >> 8 : segs - 1;
    unsigned f = (unsigned)(pos - k * 256);
    const cg__rgb *a = &anchors[k], *b = &anchors[k + 1];
    return (cg__rgb){(uint8_t)((a->r * (256 - f) + b->r * f) / 256),
                     (uint8_t)((a->g * (256 - f) + b->g * f) / 256),
                     (uint8_t)((a->b * (256 - f) + b->b * f) / 256)};
}
