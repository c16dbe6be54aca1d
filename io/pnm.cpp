// placeholder, replaced by the I/O implementation
