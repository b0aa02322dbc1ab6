/*
 * rawsock — sends hand-made (and hostile) bytes to a moku daemon's socket,
 * for the integration tests of malformed requests. Independent of moku's
 * own wire code on purpose.
 *
 *   rawsock SOCKET frame TEXT   one well-formed frame holding TEXT; prints the reply
 *   rawsock SOCKET garbage      bytes that are no frame at all, then close
 *   rawsock SOCKET huge         a header announcing 1 GiB, then close
 *   rawsock SOCKET short        a header announcing 100 bytes, 3 bytes, then close
 *   rawsock SOCKET idle         connect, send nothing for 2 s, close
 *   rawsock SOCKET hold N S     open N connections (as many as the daemon keeps), send
 *                               nothing, hold them S seconds; prints how many it opened
 *   rawsock SOCKET noread S TEXT  send one frame holding TEXT, never read the reply,
 *                               hold the connection S seconds
 *   rawsock SOCKET many N TEXT  N requests holding TEXT, one connection each, one after
 *                               another, each reply read; prints how many were answered
 *   rawsock SOCKET flood N TEXT  the same until a reply is not "ok": prints how many were,
 *                               then that reply (a flood of submissions and its limit)
 *   rawsock SOCKET batch TEXT... one connection: every TEXT sent as a frame before any
 *                               reply is read (pipelining), then the replies, one a line
 * Exit status 0 when the exchange went as described (a reply for `frame`).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int dial(const char *path)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        perror(path);
        exit(1);
    }
    return fd;
}

/* The daemon may close on us mid-way (that is the point of the hostile
 * modes): a failed send is not an error here. */
static void put(int fd, const void *p, size_t n)
{
    (void)!send(fd, p, n, MSG_NOSIGNAL);
}

static void header(int fd, uint32_t n)
{
    unsigned char h[4] = {n >> 24, n >> 16, n >> 8, n};
    put(fd, h, 4);
}

/* One reply frame read and returned (caller frees), or NULL. */
static char *exchange_reply(int fd)
{
    unsigned char h[4];
    if (recv(fd, h, 4, MSG_WAITALL) != 4)
        return NULL;
    uint32_t n = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
    char *buf = malloc((size_t)n + 1);
    if (!buf || (n && recv(fd, buf, n, MSG_WAITALL) != (ssize_t)n)) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

/* One frame sent, its reply read and returned (caller frees), or NULL. */
static char *exchange(int fd, const char *text)
{
    header(fd, (uint32_t)strlen(text));
    put(fd, text, strlen(text));
    return exchange_reply(fd);
}

/* hold N S: connections the daemon may close as it likes (its caps). */
static int hold(const char *path, int n, int secs)
{
    int opened = 0;
    for (int i = 0; i < n; i++) {
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
            if (fd >= 0)
                close(fd);
            continue;
        }
        opened++; /* kept open (not closed) until exit */
    }
    printf("%d\n", opened);
    fflush(stdout);
    sleep((unsigned)secs);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: rawsock SOCKET frame TEXT|garbage|huge|short|idle|"
                        "hold N S|noread S TEXT|many N TEXT|flood N TEXT\n");
        return 2;
    }
    if (strcmp(argv[2], "hold") == 0 && argc == 5)
        return hold(argv[1], atoi(argv[3]), atoi(argv[4]));
    if (strcmp(argv[2], "many") == 0 && argc == 5) {
        int n = atoi(argv[3]), got = 0;
        for (int i = 0; i < n; i++) {
            int fd = dial(argv[1]);
            char *r = exchange(fd, argv[4]);
            got += r != NULL;
            free(r);
            close(fd);
        }
        printf("%d\n", got);
        return got == n ? 0 : 1;
    }
    if (strcmp(argv[2], "flood") == 0 && argc == 5) {
        int n = atoi(argv[3]), ok = 0;
        char *r = NULL;
        for (; ok < n; ok++) {
            int fd = dial(argv[1]);
            free(r);
            r = exchange(fd, argv[4]);
            close(fd);
            if (!r || !strstr(r, "\"ok\":true"))
                break;
        }
        printf("%d\n%s\n", ok, ok < n && r ? r : "");
        free(r);
        return 0;
    }
    int fd = dial(argv[1]);
    const char *mode = argv[2];
    if (strcmp(mode, "batch") == 0 && argc >= 4) {
        for (int i = 3; i < argc; i++) {
            header(fd, (uint32_t)strlen(argv[i]));
            put(fd, argv[i], strlen(argv[i]));
        }
        for (int i = 3; i < argc; i++) {
            char *r = exchange_reply(fd);
            if (!r)
                return 1;
            printf("%s\n", r);
            free(r);
        }
        close(fd);
        return 0;
    }
    if (strcmp(mode, "noread") == 0 && argc == 5) {
        header(fd, (uint32_t)strlen(argv[4]));
        put(fd, argv[4], strlen(argv[4]));
        sleep((unsigned)atoi(argv[3]));
        close(fd);
        return 0;
    }
    if (strcmp(mode, "frame") == 0 && argc == 4) {
        char *buf = exchange(fd, argv[3]);
        if (!buf)
            return 1;
        printf("%s\n", buf);
        free(buf);
    } else if (strcmp(mode, "garbage") == 0) {
        static const char junk[] = "\x00\x00\x00\x05{{{{{\xff\xfe garbage \x01\x02";
        put(fd, junk, sizeof junk - 1);
    } else if (strcmp(mode, "huge") == 0) {
        header(fd, 1u << 30);
        put(fd, "{}", 2);
    } else if (strcmp(mode, "short") == 0) {
        header(fd, 100);
        put(fd, "{\"c", 3);
    } else if (strcmp(mode, "idle") == 0) {
        sleep(2);
    } else {
        return 2;
    }
    close(fd);
    return 0;
}
