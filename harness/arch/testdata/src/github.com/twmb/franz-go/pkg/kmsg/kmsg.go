package kmsg
