#version 450
layout(location = 0) noperspective in vec4 v0;
layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;
void main() { o0 = v0; o1 = vec4(1.0 - v0.x, 1.0 - v0.y, 1.0 - v0.z, v0.w); }
