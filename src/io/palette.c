/* io/palette.c - the colours of the pictures (io/palette.h). */
#include "io/palette.h"

const cg__rgb cg__wall_rgb = {46, 40, 36};     /* dark rock */
const cg__rgb cg__floor_rgb = {226, 212, 178}; /* sand */

/* Points of named kinds, 'A'..'Z': hues far apart from each other, from
 * the sand of the floor and from the entrance's green and the exit's red. */
static const cg__rgb kinds[26] = {
    {0, 114, 178},   {230, 97, 1},    {170, 51, 119},  {0, 158, 115},  {86, 180, 233},
    {204, 121, 167}, {117, 112, 179}, {102, 166, 30},  {166, 118, 29}, {27, 158, 119},
    {217, 95, 2},    {231, 41, 138},  {55, 126, 184},  {77, 175, 74},  {152, 78, 163},
    {255, 127, 0},   {166, 86, 40},   {247, 129, 191}, {31, 120, 180}, {51, 160, 44},
    {106, 61, 154},  {177, 89, 40},   {0, 139, 139},   {139, 0, 139},  {128, 128, 0},
    {70, 130, 180},
};

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
