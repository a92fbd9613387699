// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * udp_pingpong: the kernel's own floor for a one-way trip between two
 * sockets, to put ib_send_lat's figure in scale.  Both sides busy-poll
 * (MSG_DONTWAIT), as perftest does, so no wakeup is measured.
 *
 *   udp_pingpong server PORT
 *   udp_pingpong client ADDR PORT ITERS     prints "one-way N.NN usec"
 *
 * A round trip is one 64-byte datagram each way; the result is half the
 * mean round trip, perftest's convention.  IPv4 only: it is a yardstick.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MSG_BYTES	64
#define WARMUP		100
#define STOP		0x5a	/* first byte of the client's last message */

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void spin_recv(int s, char *buf, struct sockaddr_in *from)
{
	for (;;) {
		socklen_t len = sizeof(*from);
		ssize_t n = recvfrom(s, buf, MSG_BYTES, MSG_DONTWAIT,
				     (struct sockaddr *)from, &len);

		if (n > 0)
			return;
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			die("recvfrom");
	}
}

static void send_to(int s, const char *buf, const struct sockaddr_in *to)
{
	if (sendto(s, buf, MSG_BYTES, 0, (const struct sockaddr *)to,
		   sizeof(*to)) != MSG_BYTES)
		die("sendto");
}

static int server(int s, int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct sockaddr_in from;
	char buf[MSG_BYTES];

	a.sin_port = htons(port);
	if (bind(s, (struct sockaddr *)&a, sizeof(a)))
		die("bind");
	for (;;) {
		spin_recv(s, buf, &from);
		send_to(s, buf, &from);
		if (buf[0] == STOP)
			return 0;
	}
}

static int client(int s, const char *addr, int port, long iters)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	struct sockaddr_in from;
	char buf[MSG_BYTES] = { 0 };
	double t0;
	long i;

	to.sin_port = htons(port);
	if (inet_pton(AF_INET, addr, &to.sin_addr) != 1) {
		fprintf(stderr, "bad address %s\n", addr);
		return 1;
	}
	for (i = 0; i < WARMUP; i++) {
		send_to(s, buf, &to);
		spin_recv(s, buf, &from);
	}
	t0 = now_us();
	for (i = 0; i < iters; i++) {
		send_to(s, buf, &to);
		spin_recv(s, buf, &from);
	}
	printf("one-way %.2f usec\n", (now_us() - t0) / iters / 2);
	buf[0] = STOP;
	send_to(s, buf, &to);
	spin_recv(s, buf, &from);
	return 0;
}

int main(int argc, char **argv)
{
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	if (s < 0)
		die("socket");
	if (argc == 3 && !strcmp(argv[1], "server"))
		return server(s, atoi(argv[2]));
	if (argc == 5 && !strcmp(argv[1], "client") && atol(argv[4]) > 0)
		return client(s, argv[2], atoi(argv[3]), atol(argv[4]));
	fprintf(stderr, "usage: %s server PORT | client ADDR PORT ITERS\n",
		argv[0]);
	return 2;
}
