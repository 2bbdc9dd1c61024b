/* A stand-in for systemd-logind on the bus DBUS_SYSTEM_BUS_ADDRESS names,
 * for the agent memory benchmark with graceful shutdown on: it answers the
 * InhibitDelayMaxUSec property (argv[1] seconds, default 30) and Inhibit
 * (a pipe end, as logind hands out) until killed. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

static uint64_t delay_usec = UINT64_C(30000000);

static int on_inhibit(sd_bus_message *m, void *payload, sd_bus_error *err)
{
	int p[2];
	(void)payload;
	(void)err;
	/* The read end stays open here, as logind keeps its end. */
	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	int r = sd_bus_reply_method_return(m, "h", p[1]);
	close(p[1]);
	return r;
}

static int on_delay(sd_bus *bus, const char *path, const char *iface, const char *prop,
                    sd_bus_message *reply, void *payload, sd_bus_error *err)
{
	(void)bus, (void)path, (void)iface, (void)prop, (void)payload, (void)err;
	return sd_bus_message_append(reply, "t", delay_usec);
}

static const sd_bus_vtable vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("InhibitDelayMaxUSec", "t", on_delay, 0, 0),
    SD_BUS_METHOD("Inhibit", "ssss", "h", on_inhibit, 0),
    SD_BUS_SIGNAL("PrepareForShutdown", "b", 0),
    SD_BUS_VTABLE_END,
};

int main(int argc, char **argv)
{
	sd_bus *bus = NULL;
	if (argc > 1)
		delay_usec = (uint64_t)strtoull(argv[1], NULL, 10) * 1000000;
	if (sd_bus_open_system(&bus) < 0 ||
	    sd_bus_add_object_vtable(bus, NULL, "/org/freedesktop/login1",
	                             "org.freedesktop.login1.Manager", vtable, NULL) < 0 ||
	    sd_bus_request_name(bus, "org.freedesktop.login1", 0) < 0) {
		fprintf(stderr, "bench_logind: cannot serve org.freedesktop.login1\n");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		while (sd_bus_process(bus, NULL) > 0)
			;
		if (sd_bus_wait(bus, UINT64_MAX) < 0)
			break;
	}
	sd_bus_unref(bus);
	return 0;
}
