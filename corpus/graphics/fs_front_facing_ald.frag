#version 450
layout(location = 0) flat in vec4 v0;
layout(location = 0) out vec4 o0;
void main() { o0 = vec4(v0.x, gl_FrontFacing ? 1.0 : 0.0, v0.z, v0.w); }
