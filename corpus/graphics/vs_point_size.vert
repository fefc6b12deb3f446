#version 450
layout(location = 0) in vec4 a0;
layout(location = 1) in vec4 a1;
layout(location = 0) flat out vec4 v0;
void main() { gl_Position = a0; gl_PointSize = a1.w; v0 = vec4(a1.xyz, 1.0); }
