/* node — see node.h. */
#include "core/node.h"

#include <string.h>
#include <strings.h>

int node_state_parse(const char *s, enum node_state *out)
{
    static const struct {
        const char *name;
        enum node_state state;
    } names[] = {
        {"Idle", NODE_UP},    {"Up", NODE_UP},        {"Busy", NODE_UP},
        {"Running", NODE_UP}, {"Active", NODE_UP},    {"Available", NODE_UP},
        {"Down", NODE_DOWN},  {"Defined", NODE_DOWN}, {"Drained", NODE_DRAINED},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(s, names[i].name) == 0) {
            *out = names[i].state;
            return 0;
        }
    return -1;
}

const char *node_state_name(enum node_state s)
{
    switch (s) {
    case NODE_UP:
        return "Idle";
    case NODE_DOWN:
        return "Down";
    case NODE_DRAINED:
        return "Drained";
    }
    return "Unknown";
}

int node_has_feature(const struct node *n, const char *feature)
{
    for (size_t i = 0; i < n->nfeatures; i++)
        if (strcmp(n->features[i], feature) == 0)
            return 1;
    return 0;
}
