#version 450
layout(location = 0) flat in vec4 v0;
layout(location = 0) out vec4 o0;
void main() { o0 = v0; }
